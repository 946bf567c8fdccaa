// Resource templates pdpp://record/{handle} and pdpp://field-window/{handle}: the same RS calls
// and answers as fetch and read_record_field. pdpp://blob/{handle}: a byte range of a binary field
// as an MCP blob (002 tier 4), through the RS blob route. A malformed handle fails before any RS call.
import {
  blobUri,
  decodeBlobHandle,
  decodeRecordHandle,
  decodeWindowHandle,
  parseResourceUri,
} from "../core/render/handles.js";
import { resolveRecordTarget } from "../core/render/record-ref.js";
import type { CheckedSelector } from "../core/render/selector.js";
import { renderWindowText } from "../core/render/window-text.js";
import { param, rsApi } from "./rs-api.js";
import { fetchDocument } from "./tools/fetch.js";
import { readWindow } from "./tools/read-record-field.js";
import type { ToolDeps } from "./tools/types.js";

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "pdpp://record/{handle}",
    name: "record",
    title: "Record document",
    description: "One record as the fetch tool returns it (JSON).",
    mimeType: "application/json",
  },
  {
    uriTemplate: "pdpp://field-window/{handle}",
    name: "field-window",
    title: "Field window",
    description: "A bounded window of a text field; _meta has next_uri/previous_uri.",
    mimeType: "text/plain",
  },
  {
    uriTemplate: "pdpp://blob/{handle}",
    name: "blob",
    title: "Binary field bytes",
    description:
      "Bytes of a binary field in ranges of up to 24,576 (a base64 blob), then a JSON text part with size_bytes, digest, complete and next_uri.",
    mimeType: "application/octet-stream",
  },
];

export type ResourceContents = {
  uri: string;
  mimeType: string;
  _meta?: Record<string, unknown>;
} & ({ text: string } | { blob: string });

/** One range of a binary field: the bytes as a blob, then the same header as visible JSON text. */
async function readBlob(
  uri: string,
  handle: string,
  deps: ToolDeps,
): Promise<{ contents: ResourceContents[] }> {
  const h = decodeBlobHandle(handle);
  const target = resolveRecordTarget(`${h.c}/${h.s}:${h.r}`);
  const query: [string, string][] = [["field", h.f]];
  param(query, "connection_id", target.connectionId);
  if (h.o > 0) param(query, "offset_bytes", h.o);
  param(query, "if_digest", h.d);
  const answer = await rsApi.blobRange(
    deps.rs,
    "resources/read",
    { stream: target.stream, recordId: target.recordId },
    query,
  );
  const { field, range } = answer;
  const next =
    range.next_offset_bytes === null
      ? null
      : blobUri({ c: h.c, s: h.s, r: h.r, f: h.f, o: range.next_offset_bytes, d: field.digest });
  const header = {
    id: answer.record.id,
    field_path: field.path,
    mime_type: field.mime_type,
    size_bytes: field.size_bytes,
    digest: field.digest,
    start_bytes: range.start_bytes,
    end_bytes: range.end_bytes,
    complete: range.complete,
    next_uri: next,
  };
  return {
    contents: [
      { uri, mimeType: field.mime_type, blob: range.data, _meta: header },
      { uri, mimeType: "application/json", text: JSON.stringify(header) },
    ],
  };
}

export async function readResource(uri: string, deps: ToolDeps): Promise<{ contents: ResourceContents[] }> {
  const { kind, handle } = parseResourceUri(uri);
  if (kind === "blob") return readBlob(uri, handle, deps);
  if (kind === "record") {
    const h = decodeRecordHandle(handle);
    const target = resolveRecordTarget(`${h.c}/${h.s}:${h.r}`);
    const doc = await fetchDocument(target, { deps, tool: "fetch" });
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(doc) }] };
  }
  const h = decodeWindowHandle(handle);
  const target = resolveRecordTarget(`${h.c}/${h.s}:${h.r}`);
  const selector: CheckedSelector =
    "cur" in h.w
      ? { kind: "cursor", cursor: h.w.cur }
      : { kind: "range", offset_chars: h.w.o, limit_chars: h.w.l };
  const result = await readWindow(target, { fieldPath: h.f, selector, deps, tool: "read_record_field" });
  return {
    contents: [
      {
        uri,
        mimeType: "text/plain",
        text: result.window.text,
        _meta: {
          header: renderWindowText({ ...result, window: { ...result.window, text: "" } }).trimEnd(),
          start_chars: result.window.start_chars,
          end_chars: result.window.end_chars,
          size_chars: result.field.size_chars,
          complete: result.window.complete,
          next_uri: result.resource.next_uri,
          previous_uri: result.resource.previous_uri,
        },
      },
    ],
  };
}
