// The fetch tool's document ({id, title, text, url, metadata}, the search/fetch contract): the
// first text field bounded to 16,384 chars with its continuation in metadata, else compact JSON.
import type { SchemaStream, WireRecord } from "../wire.js";
import {
  codePoints,
  FETCH_JSON_CHARS,
  FETCH_TEXT_CHARS,
  MAX_RESULT_CHARS,
  sliceCodePoints,
} from "./budget.js";
import { windowUri } from "./handles.js";

export interface FetchDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata: Record<string, unknown>;
}

export function recordUrl(
  providerUrl: string,
  record: { stream: string; record_id: string; connection_id: string },
): string {
  const base = providerUrl.replace(/\/+$/, "");
  return `${base}/v1/streams/${record.stream}/records/${encodeURIComponent(record.record_id)}?connection_id=${record.connection_id}`;
}

/** title_field when granted and present; else `<connection> · <stream> · <time>` (authored time first). */
export function documentTitle(
  record: WireRecord,
  stream: SchemaStream | undefined,
  narrowed: boolean,
): string {
  const titleField = stream?.title_field;
  const value = titleField ? record.data[titleField] : undefined;
  if (typeof value === "string" && value.trim().length > 0)
    return sliceCodePoints(value.replace(/\s+/g, " "), 200);
  const when = narrowed ? record.record_id : (record.time ?? record.emitted_at);
  return `${record.display_name} · ${record.stream} · ${when}`;
}

function firstTextField(record: WireRecord, stream: SchemaStream | undefined): string | null {
  const declared = Object.entries(stream?.fields ?? {})
    .filter(([, caps]) => caps.text_like && caps.granted)
    .map(([name]) => name);
  for (const name of [...declared, ...Object.keys(record.field_previews ?? {})]) {
    if (typeof record.data[name] === "string") return name;
  }
  return null;
}

function smallFields(data: Record<string, unknown>, skip: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let used = 0;
  for (const [key, value] of Object.entries(data)) {
    if (key === skip) continue;
    const shown = typeof value === "string" && value.length > 200 ? `${sliceCodePoints(value, 200)}…` : value;
    const size = JSON.stringify(shown ?? null).length + key.length;
    if (used + size > FETCH_JSON_CHARS) {
      out._more = "more fields: query_records with fields";
      break;
    }
    out[key] = shown;
    used += size;
  }
  return out;
}

export function buildFetchDocument(
  requestedId: string,
  record: WireRecord,
  options: { stream?: SchemaStream; providerUrl: string; narrowed: boolean },
): FetchDocument {
  const textField = firstTextField(record, options.stream);
  const metadata: Record<string, unknown> = {
    connection_id: record.connection_id,
    connector_key: record.connector_key,
    display_name: record.display_name,
    stream: record.stream,
    record_id: record.record_id,
    record_handle: record.id,
  };
  if (!options.narrowed) metadata.time = record.time;
  let text: string;
  if (textField) {
    const full = record.data[textField] as string;
    const preview = record.field_previews?.[textField];
    const total = preview ? preview.size_chars : codePoints(full);
    text = sliceCodePoints(full, FETCH_TEXT_CHARS);
    metadata.text_field = textField;
    const fit = fitText(requestedId, text, metadata, options);
    text = fit;
    const shown = codePoints(text);
    metadata.text_complete = shown >= total;
    metadata.text_total_chars = total;
    if (shown < total) {
      metadata.continue_with = {
        tool: "read_record_field",
        args: { id: record.id, field_path: textField, offset_chars: shown },
      };
      metadata.resource_uri = windowUri({
        c: record.connection_id,
        s: record.stream,
        r: record.record_id,
        f: textField,
        w: { o: shown },
      });
      if (preview?.digest) metadata.digest = preview.digest;
    }
    metadata.fields = smallFields(record.data, textField);
  } else {
    const json = JSON.stringify(record.data);
    text = json.length > FETCH_JSON_CHARS ? `${json.slice(0, FETCH_JSON_CHARS - 1)}…` : json;
    metadata.text_field = null;
    metadata.text_complete = json.length <= FETCH_JSON_CHARS;
    metadata.text_total_chars = json.length;
    if (json.length > FETCH_JSON_CHARS) {
      metadata.hint = "record JSON cut; read it whole with query_records and fields";
    }
  }
  return {
    id: requestedId,
    title: documentTitle(record, options.stream, options.narrowed),
    text,
    url: recordUrl(options.providerUrl, record),
    metadata,
  };
}

/** Shorten text until the whole document (and its JSON mirror) stays under the result cap. */
function fitText(
  id: string,
  text: string,
  metadata: Record<string, unknown>,
  options: { providerUrl: string },
): string {
  let current = text;
  const overhead = JSON.stringify({ id, metadata, url: options.providerUrl }).length + 2_000;
  while (JSON.stringify(current).length + overhead > MAX_RESULT_CHARS && current.length > 0) {
    current = sliceCodePoints(current, Math.floor(codePoints(current) / 2));
  }
  return current;
}
