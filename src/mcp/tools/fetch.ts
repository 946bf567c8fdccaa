// Tool `fetch`: one record as a search/fetch document {id, title, text, url, metadata}.
import { z } from "zod";
import { FETCH_TEXT_CHARS } from "../../core/render/budget.js";
import { buildFetchDocument, type FetchDocument } from "../../core/render/fetch-doc.js";
import { type RecordTarget, resolveRecordTarget } from "../../core/render/record-ref.js";
import { param, rsApi } from "../rs-api.js";
import { checkFields, connectionIdArg, fieldsArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS, type ToolDeps } from "./types.js";

const inputSchema = z.strictObject({
  id: z.string().describe("an id exactly as search or query_records printed it"),
  connection_id: connectionIdArg.optional().describe("only for a stream:record_id id on a shared stream"),
  fields: fieldsArg.optional(),
});

/** Shared with the record resource: same RS calls, same document. */
export async function fetchDocument(
  target: RecordTarget,
  options: { fields?: string[]; deps: ToolDeps; tool: string },
): Promise<FetchDocument> {
  const { deps, tool, fields } = options;
  const query: [string, string][] = [];
  param(query, "connection_id", target.connectionId);
  if (fields) param(query, "fields", fields.join(","));
  param(query, "preview_chars", FETCH_TEXT_CHARS);
  const record = await rsApi.getRecord(
    deps.rs,
    tool,
    { stream: target.stream, recordId: target.recordId },
    query,
  );
  const row = (await deps.schemas.rows(deps.rs, { tool, stream: record.stream })).get(record.connector_key);
  return buildFetchDocument(target.id, record, {
    stream: row,
    providerUrl: deps.providerUrl,
    narrowed: fields !== undefined,
  });
}

export const fetchTool = defineTool({
  name: "fetch",
  title: "Fetch one record as a document",
  description:
    "Fetch one record by the id search or query_records printed (pass it as-is; it already names its connection). Returns {id, title, text, url, metadata}: text is the first long-text field (up to 16,384 chars) or the record as JSON; when text is cut, metadata has text_complete:false and continue_with, the exact read_record_field arguments for the rest. fields narrows the record first.",
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema: z.strictObject({
    id: z.string(),
    title: z.string(),
    text: z.string(),
    url: z.string(),
    metadata: z.looseObject({ connection_id: z.string(), stream: z.string(), record_id: z.string() }),
  }),
  async handler(args, deps) {
    const target = resolveRecordTarget(args.id, args.connection_id);
    const fields = checkFields(args.fields);
    const doc = await fetchDocument(target, { fields, deps, tool: "fetch" });
    return { content: [{ type: "text", text: JSON.stringify(doc) }], structuredContent: { ...doc } };
  },
});
