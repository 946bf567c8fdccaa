// Tool `aggregate`: count/sum/min/max/count_distinct over a stream, optionally grouped.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { isFieldPath } from "../../core/ids.js";
import { renderAggregateText } from "../../core/render/aggregate-text.js";
import { checkFilter, filterParams } from "../../core/render/filter.js";
import { checkConnectionArg } from "../../core/render/record-ref.js";
import { param, rsApi } from "../rs-api.js";
import { checkStream, connectionIdArg, filterArg, streamArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./types.js";

const inputSchema = z.strictObject({
  stream: streamArg,
  metric: z.enum(["count", "sum", "min", "max", "count_distinct"]),
  field: z.string().optional().describe("needed for sum/min/max/count_distinct"),
  group_by: z.string().optional(),
  group_by_time: z.string().optional().describe("a time field; use with granularity"),
  granularity: z.enum(["minute", "hour", "day", "week", "month", "quarter", "year"]).optional(),
  time_zone: z.string().optional().describe("IANA, default UTC"),
  limit: z.int().min(1).max(100).optional().describe("max groups, default 10"),
  filter: filterArg.optional(),
  connection_id: connectionIdArg.optional(),
});

function checkField(value: string | undefined, name: string): string | undefined {
  if (value !== undefined && !isFieldPath(value)) {
    throw new PdppError("invalid_request", `${name} must be a field from schema(stream).`, { param: name });
  }
  return value;
}

export const aggregateTool = defineTool({
  name: "aggregate",
  title: "Aggregate a stream",
  description:
    "Count, sum, min, max or count_distinct over one stream without reading records; optionally group_by a field (top groups plus other_count) or group_by_time with a granularity and time_zone. Takes the same typed filter as query_records. Fields that allow each aggregation are listed by schema(stream).",
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema: z.object({
    data: z.looseObject({
      object: z.literal("aggregate"),
      metric: z.string(),
      filtered_record_count: z.number(),
    }),
  }),
  async handler(args, deps) {
    const stream = checkStream(args.stream);
    const filter = checkFilter(args.filter);
    if (args.group_by !== undefined && args.group_by_time !== undefined) {
      throw new PdppError("invalid_request", "pass group_by or group_by_time, not both.", {
        param: "group_by",
      });
    }
    const query: [string, string][] = [...filterParams(filter)];
    param(query, "metric", args.metric);
    param(query, "field", checkField(args.field, "field"));
    param(query, "group_by", checkField(args.group_by, "group_by"));
    param(query, "group_by_time", checkField(args.group_by_time, "group_by_time"));
    param(query, "granularity", args.granularity);
    param(query, "time_zone", args.time_zone);
    param(query, "limit", args.limit);
    param(query, "connection_id", checkConnectionArg(args.connection_id));
    const answer = await rsApi.aggregate(deps.rs, "aggregate", stream, query);
    const text = renderAggregateText(answer, { groupBy: args.group_by ?? args.group_by_time });
    return { content: [{ type: "text", text }], structuredContent: { data: answer } };
  },
});
