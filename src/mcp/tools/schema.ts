// Tool `schema`: the grant-wide stream index, or one stream's field capabilities; both paged with a
// cursor when a grant or a stream is too large for one result (never an error for a valid grant).
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { jsonChars, MAX_RESULT_CHARS } from "../../core/render/budget.js";
import { checkConnectionArg } from "../../core/render/record-ref.js";
import { parseSchemaCursor, resumeOffset } from "../../core/render/schema-cursor.js";
import {
  type FieldsRequest,
  fieldsCallArgs,
  fieldsIdentity,
  fieldsPage,
} from "../../core/render/schema-fields.js";
import { indexIdentity, indexPage } from "../../core/render/schema-index.js";
import {
  clipDescriptions,
  fieldFlags,
  fitSchemaDoc,
  renderSchemaStream,
} from "../../core/render/schema-text.js";
import type { SchemaAnswer } from "../../core/wire.js";
import { rsApi } from "../rs-api.js";
import { checkStream, connectionIdArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS, type ToolResult } from "./types.js";

const inputSchema = z.strictObject({
  stream: z.string().min(1).optional().describe("omit for the index"),
  connection_id: connectionIdArg.optional(),
  detail: z.enum(["compact", "full"]).optional(),
  cursor: z.string().optional().describe("next_cursor, as-is"),
});

/** Descriptions are cut to this many code points before a wide stream's field list is paged. */
const PAGED_DESCRIPTION_CHARS = 120;

export const schemaTool = defineTool({
  name: "schema",
  title: "Schema: streams, connections and field capabilities",
  description:
    'Start here. No stream: every granted stream by connector, with connection_ids, labels and record counts. With stream: each field\'s type and capabilities (filter ops, sort, aggregations, long text) and a legend to build filter, sort, fields and aggregate arguments. detail:"full" adds JSON Schema (needs stream). Large answers are paged: pass next_cursor as cursor.',
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
    const cursor = args.cursor === undefined ? undefined : parseSchemaCursor(args.cursor);
    const answer = await rsApi.schema(deps.rs, "schema", {
      stream,
      connection_id: connectionId,
      view: args.detail,
    });
    if (stream === undefined) {
      const offset = resumeOffset(cursor, {
        kind: "index",
        ...indexIdentity(answer),
        retry: "call schema {} without cursor to start over",
      });
      const page = indexPage(answer, { offset });
      return result(page.text, page.doc);
    }
    const request: FieldsRequest = { stream, connectionId, detail: args.detail };
    if (cursor === undefined) {
      const whole = fitSchemaDoc(answer, {
        maxChars: MAX_RESULT_CHARS - 500,
        floor: PAGED_DESCRIPTION_CHARS,
      });
      if (whole) {
        let text = renderSchemaStream(whole.doc, stream);
        if (whole.clipped) text += "\n(field descriptions shortened to fit the result budget)";
        if (text.length <= MAX_RESULT_CHARS - 200) return result(text, whole.doc, request);
      }
    }
    return fieldsResult(clipDescriptions(answer, PAGED_DESCRIPTION_CHARS), { request, cursor });
  },
});

/**
 * The result, or (only for a connector of hundreds of connections, whose own lines outgrow a
 * page) limit_exceeded naming the narrowing steps the call has not taken yet.
 */
function result(text: string, doc: SchemaAnswer, request?: FieldsRequest): ToolResult {
  if (jsonChars({ data: doc }) > MAX_RESULT_CHARS - 200 || text.length > MAX_RESULT_CHARS) {
    const steps: string[] = [];
    if (request === undefined) steps.push("call schema(stream) for the streams you need");
    else {
      if (!request.connectionId) steps.push("pass connection_id");
      if (!request.stream.includes(":")) steps.push("qualify the stream as connector_key:stream");
    }
    throw new PdppError(
      "limit_exceeded",
      `this schema answer does not fit one result even paged${steps.length > 0 ? `; ${steps.join(", or ")}` : ""}.`,
      { param: request?.connectionId ? "stream" : request ? "connection_id" : "stream" },
    );
  }
  return { content: [{ type: "text", text }], structuredContent: { data: doc } };
}

/** One page of a wide stream's field list, with the call for the next page in both channels. */
function fieldsResult(
  doc: SchemaAnswer,
  options: { request: FieldsRequest; cursor: ReturnType<typeof parseSchemaCursor> | undefined },
): ToolResult {
  const { request } = options;
  const identity = fieldsIdentity(doc, request);
  const offset = resumeOffset(options.cursor, {
    kind: "fields",
    ...identity,
    retry: `call schema ${fieldsCallArgs(request)} without cursor to start over`,
  });
  const full = doc.view === "full";
  const page = fieldsPage(doc, {
    offset,
    request,
    lineOf: (path, caps) => fieldFlags(path, caps, { sortable: new Set(), full }),
  });
  const next = page.nextCursor ? fieldsCallArgs(request, page.nextCursor) : null;
  const text = renderSchemaStream(page.doc, request.stream, {
    page: { from: page.from, to: page.to, total: page.total, next },
    whole: doc,
  });
  const data: SchemaAnswer & Record<string, unknown> = {
    ...page.doc,
    total_fields: page.total,
    fields_shown: { from: page.from + 1, to: page.to },
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
  };
  return result(text, data, request);
}
