// Resource templates pdpp://record/{handle} and pdpp://field-window/{handle}: the same RS calls
// and answers as fetch and read_record_field. A malformed handle fails before any RS call.
import { decodeRecordHandle, decodeWindowHandle, parseResourceUri } from "../core/render/handles.js";
import { resolveRecordTarget } from "../core/render/record-ref.js";
import type { CheckedSelector } from "../core/render/selector.js";
import { renderWindowText } from "../core/render/window-text.js";
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
];

export interface ResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: Record<string, unknown>;
}

export async function readResource(uri: string, deps: ToolDeps): Promise<{ contents: ResourceContents[] }> {
  const { kind, handle } = parseResourceUri(uri);
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
