// Tool `read_record_field`: a bounded window of one text field, paged with cursors, so any
// client can read a long field to its last character.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { isFieldPath, parseStreamName } from "../../core/ids.js";
import {
  CONTEXT_MAX_CHARS,
  jsonChars,
  MAX_RESULT_CHARS,
  WINDOW_MAX_CHARS,
} from "../../core/render/budget.js";
import { type RecordTarget, resolveRecordTarget } from "../../core/render/record-ref.js";
import { type CheckedSelector, checkSelector, selectorParams } from "../../core/render/selector.js";
import { buildWindowResult, renderWindowText, type WindowResult } from "../../core/render/window-text.js";
import { param, rsApi } from "../rs-api.js";
import { connectionIdArg } from "./common.js";
import { type ContentBlock, defineTool, READ_ONLY_ANNOTATIONS, type ToolDeps } from "./types.js";

const inputSchema = z.strictObject({
  id: z.string().optional().describe("self-contained id cin_…/stream:record_id"),
  connection_id: connectionIdArg.optional(),
  stream: z.string().optional().describe("with connection_id and record_id instead of id"),
  record_id: z.string().optional(),
  field_path: z.string().min(1).describe("e.g. body or sender.email"),
  cursor: z.string().optional().describe("next_cursor/previous_cursor; only limit_chars may join it"),
  offset_chars: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit_chars: z.int().min(1).max(WINDOW_MAX_CHARS).optional().describe("default 4096"),
  q: z.string().optional().describe("centre the window on the first match"),
  before_chars: z.int().min(0).max(CONTEXT_MAX_CHARS).optional().describe("with q, default 2048"),
  after_chars: z.int().min(0).max(CONTEXT_MAX_CHARS).optional().describe("with q, default 2048"),
});

type Args = z.infer<typeof inputSchema>;

const nullableString = z.string().nullable();
const outputSchema = z.strictObject({
  record: z.strictObject({
    id: z.string(),
    connection_id: z.string(),
    stream: z.string(),
    record_id: z.string(),
  }),
  field: z.strictObject({
    path: z.string(),
    mime_type: z.string().optional(),
    text_like: z.boolean(),
    size_chars: z.int(),
    digest: z.string(),
  }),
  window: z.strictObject({
    text: z.string(),
    start_chars: z.int(),
    end_chars: z.int(),
    limit_chars: z.int(),
    complete: z.boolean(),
    next_cursor: nullableString,
    previous_cursor: nullableString,
    match: z.strictObject({ q: z.string(), start_chars: z.int(), end_chars: z.int() }).nullable(),
  }),
  resource: z.strictObject({ uri: z.string(), next_uri: nullableString, previous_uri: nullableString }),
});

/** Resolve which record the call names (id, or connection_id+stream+record_id); no I/O. */
export function windowTarget(
  args: Pick<Args, "id" | "connection_id" | "stream" | "record_id">,
): RecordTarget {
  if (args.id !== undefined) {
    if (args.stream !== undefined || args.record_id !== undefined) {
      throw new PdppError(
        "invalid_request",
        "pass id alone, or connection_id + stream + record_id without id.",
        { param: "id" },
      );
    }
    const target = resolveRecordTarget(args.id, args.connection_id);
    if (!target.connectionId) {
      throw new PdppError(
        "invalid_id",
        "read_record_field needs the self-contained id {connection_id}/{stream}:{record_id} as search and fetch print it, or connection_id + stream + record_id.",
        { param: "id" },
      );
    }
    return target;
  }
  if (args.connection_id === undefined || args.stream === undefined || args.record_id === undefined) {
    throw new PdppError("invalid_request", "pass id, or all of connection_id, stream and record_id.", {
      param: "id",
    });
  }
  // The stream may be qualified (`connector_key:stream`): the RS path takes it as given, while the
  // id, like every id, keeps the bare stream name.
  const named = parseStreamName(args.stream);
  if (named === null) {
    throw new PdppError(
      "invalid_id",
      "stream must be a stream name from schema, bare or connector_key:stream.",
      {
        param: "stream",
      },
    );
  }
  const id = `${args.connection_id}/${named.stream}:${args.record_id}`;
  const target = resolveRecordTarget(id);
  if (target.recordId !== args.record_id || target.stream !== named.stream) {
    throw new PdppError("invalid_id", "stream and record_id must be single path segments.", {
      param: "record_id",
    });
  }
  return { ...target, stream: args.stream };
}

export function checkFieldPath(path: string): string {
  if (!isFieldPath(path)) {
    throw new PdppError(
      "invalid_request",
      "field_path must be dotted field names from schema(stream), e.g. body.",
      { param: "field_path" },
    );
  }
  return path;
}

/** Shared with the field-window resource: the RS window, shrunk until it fits the result cap. */
export async function readWindow(
  target: RecordTarget,
  options: { fieldPath: string; selector: CheckedSelector; deps: ToolDeps; tool: string },
): Promise<WindowResult> {
  let selector = options.selector;
  for (let attempt = 0; ; attempt++) {
    const query: [string, string][] = [["field", options.fieldPath], ...selectorParams(selector)];
    param(query, "connection_id", target.connectionId);
    const answer = await rsApi.fieldWindow(
      options.deps.rs,
      options.tool,
      { stream: target.stream, recordId: target.recordId },
      query,
    );
    const result = buildWindowResult(answer, {
      // A cursor with limit_chars reads another window than the cursor alone: name it by range.
      cursor: selector.kind === "cursor" && selector.limit_chars === undefined ? selector.cursor : undefined,
    });
    const span = Math.max(1, answer.window.end_chars - answer.window.start_chars);
    const fits = jsonChars(result) <= MAX_RESULT_CHARS - 500;
    if (fits || span <= 1 || attempt >= 8) return result;
    // Escaped text (quotes, control characters) can outgrow the cap: ask for a smaller window.
    // A cursor fixes its window size, so it is re-asked as the same start with a smaller limit;
    // that answer's next_cursor continues from where the smaller window ends, so paging stays exact.
    const smaller = Math.max(1, Math.floor(span / 2));
    selector =
      selector.kind === "match"
        ? {
            ...selector,
            before_chars: Math.floor(smaller / 2),
            after_chars: Math.floor(smaller / 2),
            limit_chars: smaller,
          }
        : { kind: "range", offset_chars: answer.window.start_chars, limit_chars: smaller };
  }
}

export function windowContent(result: WindowResult): ContentBlock[] {
  const blocks: ContentBlock[] = [{ type: "text", text: renderWindowText(result) }];
  if (!result.window.complete && result.resource.next_uri) {
    blocks.push({
      type: "resource_link",
      uri: result.resource.next_uri,
      name: `${result.field.path} from ${result.window.end_chars}`,
      mimeType: "text/plain",
      description: `next window of ${result.field.path} (${result.field.size_chars} chars in all)`,
    });
  }
  return blocks;
}

export const readRecordFieldTool = defineTool({
  name: "read_record_field",
  title: "Read a long field in windows",
  description:
    "Read one field of one record in bounded windows. Name the record by id (as search/fetch print it) or connection_id + stream + record_id. One selector: cursor, offset_chars, or q + before_chars/after_chars (default 2048, max 8192) to centre on a match; none starts at 0. limit_chars (default 4096, max 16384) sizes any window. A non-text field reads as its JSON. Text: a JSON header line, then the window verbatim. Follow next_cursor to the end.",
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema,
  async handler(args, deps) {
    const target = windowTarget(args);
    const fieldPath = checkFieldPath(args.field_path);
    const selector = checkSelector(args);
    const result = await readWindow(target, { fieldPath, selector, deps, tool: "read_record_field" });
    return { content: windowContent(result), structuredContent: { ...result } };
  },
});
