// Tool `schema`: the grant-wide stream index, or one stream's field capabilities.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { jsonChars, MAX_RESULT_CHARS } from "../../core/render/budget.js";
import { checkConnectionArg } from "../../core/render/record-ref.js";
import {
  capSchemaIndex,
  fitSchemaDoc,
  renderSchemaIndex,
  renderSchemaStream,
} from "../../core/render/schema-text.js";
import { rsApi } from "../rs-api.js";
import { checkStream, connectionIdArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./types.js";

const inputSchema = z.strictObject({
  stream: z.string().min(1).optional().describe("one stream for its fields; omit for the index"),
  connection_id: connectionIdArg.optional(),
  detail: z.enum(["compact", "full"]).optional().describe('"full" (JSON Schema) needs stream'),
});

export const schemaTool = defineTool({
  name: "schema",
  title: "Schema: streams, connections and field capabilities",
  description:
    "Start here. Without stream: an index of every granted stream by connector, with each connection's connection_id, label and record counts. With stream: every field's type and what it supports (filter ops, sort, aggregations, long text) plus a legend, enough to build filter, sort, fields and aggregate arguments. detail:\"full\" adds the JSON Schema; it needs stream.",
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema: z.object({
    data: z.looseObject({
      object: z.literal("schema"),
      view: z.string(),
      connectors: z.array(z.looseObject({})),
    }),
  }),
  async handler(args, deps) {
    if (args.detail === "full" && args.stream === undefined) {
      throw new PdppError(
        "invalid_request",
        'detail:"full" needs a stream: use schema(stream, connection_id, detail:"full") after the compact index.',
        { param: "detail" },
      );
    }
    const stream = args.stream === undefined ? undefined : checkStream(args.stream);
    const connectionId = checkConnectionArg(args.connection_id);
    const answer = await rsApi.schema(deps.rs, "schema", {
      stream,
      connection_id: connectionId,
      view: args.detail,
    });
    const { doc, clipped } = fitSchemaDoc(stream ? answer : capSchemaIndex(answer), MAX_RESULT_CHARS - 500);
    if (jsonChars({ data: doc }) > MAX_RESULT_CHARS - 200) {
      // Only a narrower scope helps (a huge JSON Schema, or thousands of stream rows).
      throw new PdppError(
        "limit_exceeded",
        stream
          ? `schema(${stream}) does not fit one result; pass connection_id, or use detail:"compact".`
          : "the schema index does not fit one result; call schema(stream) for the streams you need.",
        { param: stream ? "detail" : "stream" },
      );
    }
    let text = stream ? renderSchemaStream(doc, stream) : renderSchemaIndex(doc);
    if (clipped) text += "\n(field descriptions shortened to fit the result budget)";
    return { content: [{ type: "text", text }], structuredContent: { data: doc } };
  },
});
