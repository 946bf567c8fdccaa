// Tool `aggregate`: count/sum/min/max/count_distinct over a stream, optionally grouped.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { isFieldPath } from "../../core/ids.js";
import { renderAggregateText } from "../../core/render/aggregate-text.js";
import { jsonChars, MAX_RESULT_CHARS, sliceCodePoints } from "../../core/render/budget.js";
import { checkFilter, filterParams } from "../../core/render/filter.js";
import { checkConnectionArg } from "../../core/render/record-ref.js";
import type { AggregateAnswer } from "../../core/wire.js";
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

const GROUP_KEY_CHARS = 200;

/** Up to 100 groups keyed by long values could outgrow the result cap: long keys are clipped, said so. */
function fitAggregate(answer: AggregateAnswer): AggregateAnswer {
  if (!answer.groups || jsonChars(answer) <= MAX_RESULT_CHARS - 500) return answer;
  const groups = answer.groups.map((g) => ({
    ...g,
    key:
      g.key !== null && g.key.length > GROUP_KEY_CHARS
        ? `${sliceCodePoints(g.key, GROUP_KEY_CHARS)}…`
        : g.key,
  }));
  const warning = {
    code: "group_keys_clipped",
    message: `group keys longer than ${GROUP_KEY_CHARS} chars are cut (ending in …) to fit the result budget; lower limit for fewer groups.`,
  };
  return {
    ...answer,
    groups,
    meta: { ...answer.meta, warnings: [...(answer.meta?.warnings ?? []), warning] },
  };
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
    const answer = fitAggregate(await rsApi.aggregate(deps.rs, "aggregate", stream, query));
    const text = renderAggregateText(answer, { groupBy: args.group_by ?? args.group_by_time });
    return { content: [{ type: "text", text }], structuredContent: { data: answer } };
  },
});
