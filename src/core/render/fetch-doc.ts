// The fetch tool's document ({id, title, text, url, metadata}, the search/fetch contract): the
// first text field bounded to 16,384 chars with its continuation in metadata, else compact JSON.
import { canonicalJson } from "../canonical-json.js";
import { clipUnits } from "../clip-text.js";
import { deletePath, getPath } from "../projection.js";
import type { FieldPreviewInfo, SchemaStream, WireRecord } from "../wire.js";
import {
  boundTitle,
  codePoints,
  FETCH_JSON_CHARS,
  FETCH_TEXT_CHARS,
  MAX_RESULT_CHARS,
  sliceCodePoints,
} from "./budget.js";
import { blobUri, recordUri, windowUri } from "./handles.js";
import { binaryFieldsOf, cutPayload, holdsCutText } from "./record-preview.js";

export interface FetchDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata: Record<string, unknown>;
}

/**
 * `<provider>/v1/streams/<stream>/records/<record_id>?connection_id=<c>`; with no provider (the RS
 * runs inside the stdio process, so no http URL would resolve) the record's pdpp://record URI,
 * which the same MCP server answers through resources/read.
 */
export function recordUrl(
  providerUrl: string | null,
  record: { stream: string; record_id: string; connection_id: string },
): string {
  if (providerUrl === null)
    return recordUri({ c: record.connection_id, s: record.stream, r: record.record_id });
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
  if (typeof value === "string" && value.trim().length > 0) return boundTitle(value);
  // Without a visible time the instant shown is the import time, and the title says so.
  const when = narrowed ? record.record_id : (record.time ?? `imported ${record.emitted_at}`);
  return boundTitle(`${record.display_name} · ${record.stream} · ${when}`);
}

function firstTextField(record: WireRecord, stream: SchemaStream | undefined): string | null {
  const declared = Object.entries(stream?.fields ?? {})
    .filter(([, caps]) => caps.text_like && caps.granted && !caps.binary)
    .map(([name]) => name);
  const binary = binaryFieldsOf(stream);
  // Paths may be nested (`doc.content`): the value is looked up by path, not by top-level key.
  for (const name of [...declared, ...Object.keys(record.field_previews ?? {})]) {
    if (typeof getPath(record.data, name) === "string" && !binary.has(name)) return name;
  }
  return null;
}

const SMALL_FIELD_CHARS = 200;

/**
 * The record's other fields for metadata, each string cut to 200 chars with its exact
 * read_record_field continuation in `cut`, and the names that did not fit the 4,096-char budget.
 */
function smallFields(
  data: Record<string, unknown>,
  options: { skip: string | null; recordId: string; previews?: Record<string, FieldPreviewInfo> },
): { fields: Record<string, unknown>; cut: Record<string, unknown>; omitted: string[] } {
  const fields: Record<string, unknown> = {};
  const cut: Record<string, unknown> = {};
  const omitted: string[] = [];
  let used = 0;
  for (const [key, value] of Object.entries(data)) {
    if (key === options.skip) continue;
    // A long string, or an array/object that would not fit whole, is cut to 200 chars (the
    // array/object as its canonical JSON, the text read_record_field windows for it).
    let long: string | null =
      typeof value === "string" && codePoints(value) > SMALL_FIELD_CHARS ? value : null;
    const whole = value !== null && typeof value === "object";
    if (long === null && whole && !holdsBinary(value) && !holdsCutText(key, options.previews)) {
      if (JSON.stringify(value).length + key.length > FETCH_JSON_CHARS - used) long = canonicalJson(value);
    }
    const shown = long !== null ? sliceCodePoints(long, SMALL_FIELD_CHARS) : value;
    const size = JSON.stringify(shown ?? null).length + key.length + (long !== null ? 160 : 0);
    if (omitted.length > 0 || used + size > FETCH_JSON_CHARS) {
      omitted.push(key);
      continue;
    }
    fields[key] = shown;
    used += size;
    if (long !== null) {
      cut[key] = {
        shown: SMALL_FIELD_CHARS,
        total: codePoints(long),
        continue_with: {
          tool: "read_record_field",
          args: { id: options.recordId, field_path: key, offset_chars: SMALL_FIELD_CHARS },
        },
      };
    }
  }
  return { fields, cut, omitted };
}

export function buildFetchDocument(
  requestedId: string,
  record: WireRecord,
  options: { stream?: SchemaStream; providerUrl: string | null; narrowed: boolean },
): FetchDocument {
  const textField = firstTextField(record, options.stream);
  // Binary values become metadata stubs (MIME type, size, digest) before anything is rendered.
  const cut = cutPayload(record.data, Number.POSITIVE_INFINITY, {
    binary: binaryFieldsOf(options.stream),
    // The size of a binary field the store kept back (its value here is "").
    previews: record.field_previews,
  });
  const data = cut.data;
  const metadata: Record<string, unknown> = {
    connection_id: record.connection_id,
    connector_key: record.connector_key,
    display_name: record.display_name,
    stream: record.stream,
    record_id: record.record_id,
    record_handle: record.id,
  };
  if (!options.narrowed) metadata.time = record.time;
  // Tier 4: each binary field's bytes are one resources/read away (never in the document).
  if (cut.binary.length > 0) {
    metadata.binary_fields = Object.fromEntries(
      cut.binary.map((b) => [
        b.path,
        {
          ...(b.mimeType ? { mime_type: b.mimeType } : {}),
          size_chars: b.sizeChars,
          ...(b.digest ? { digest: b.digest } : {}),
          resource_uri: blobUri({
            c: record.connection_id,
            s: record.stream,
            r: record.record_id,
            f: b.path,
            o: 0,
          }),
        },
      ]),
    );
  }
  let text: string;
  if (textField) {
    const full = getPath(record.data, textField) as string;
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
    // The text field is the document text: it is not repeated among the other fields.
    const rest = structuredClone(data);
    deletePath(rest, textField);
    const small = smallFields(rest, {
      skip: textField,
      recordId: record.id,
      previews: record.field_previews,
    });
    metadata.fields = small.fields;
    if (Object.keys(small.cut).length > 0) metadata.fields_cut = small.cut;
    if (small.omitted.length > 0) {
      nameOmitted(metadata, small.omitted);
      metadata.hint = `fields_omitted did not fit: ${READ_OMITTED}`;
    }
  } else {
    const json = JSON.stringify(data);
    text = clipUnits(json, FETCH_JSON_CHARS);
    metadata.text_field = null;
    metadata.text_complete = json.length <= FETCH_JSON_CHARS;
    metadata.text_total_chars = json.length;
    if (json.length > FETCH_JSON_CHARS) {
      // The way on is per field: read_record_field windows any field (a non-text one as its
      // canonical JSON), so the largest fields are named with their sizes and exact arguments.
      const large = largeFields(data, record.field_previews);
      const omitted = fieldsPastPrefix(data, FETCH_JSON_CHARS - 1);
      nameOmitted(metadata, omitted);
      if (large.length > 0) metadata.large_fields = Object.fromEntries(large.map((f) => [f.path, f.size]));
      const first = large[0]?.path ?? omitted[0];
      if (first !== undefined) {
        metadata.continue_with = { tool: "read_record_field", args: { id: record.id, field_path: first } };
      }
      metadata.hint = `record JSON cut: fields_omitted are not (wholly) in text; ${READ_OMITTED}${large.length > 0 ? " (large_fields: name → chars; continue_with: the largest)" : ""}`;
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

function isBinaryStub(value: object): boolean {
  return (value as { binary?: unknown }).binary === true && "size_chars" in value;
}

/** A binary stub here or below: such a value has no JSON window (it would carry the bytes). */
function holdsBinary(value: object): boolean {
  if (isBinaryStub(value)) return true;
  return (
    !Array.isArray(value) &&
    Object.values(value).some((v) => v !== null && typeof v === "object" && holdsBinary(v))
  );
}

/** Room in metadata for the names of the fields a document leaves out. */
const OMITTED_NAMES_CHARS = 12_000;
const READ_OMITTED =
  "read one whole with read_record_field {id, field_path}, or fetch again with fields:[…] naming them";

/**
 * metadata.fields_omitted: every field the document leaves out, by name, so each has a visible
 * path (read_record_field); past OMITTED_NAMES_CHARS the count and where the rest are named.
 */
function nameOmitted(metadata: Record<string, unknown>, names: string[]): void {
  if (names.length === 0) return;
  const listed: string[] = [];
  let used = 0;
  for (const name of names) {
    used += name.length + 3;
    if (used > OMITTED_NAMES_CHARS) break;
    listed.push(name);
  }
  metadata.fields_omitted = listed;
  if (listed.length < names.length) {
    metadata.fields_omitted_count = names.length;
    metadata.fields_omitted_rest = `${names.length - listed.length} more: schema(stream) pages every field name`;
  }
}

/** Top-level fields of `data` whose `"key":value` does not end within the first `chars` of its JSON. */
function fieldsPastPrefix(data: Record<string, unknown>, chars: number): string[] {
  const out: string[] = [];
  let end = 1; // "{"
  for (const [key, value] of Object.entries(data)) {
    const json = JSON.stringify(value);
    if (json === undefined) continue;
    end += (end > 1 ? 1 : 0) + JSON.stringify(key).length + 1 + json.length;
    if (end > chars) out.push(key);
  }
  return out;
}

const LARGE_FIELDS_SHOWN = 10;

/** Top-level fields (binary stubs aside) over 200 chars, largest first, sized as read_record_field reads them. */
function largeFields(
  data: Record<string, unknown>,
  previews: Record<string, FieldPreviewInfo> | undefined,
): { path: string; size: number }[] {
  const out: { path: string; size: number }[] = [];
  for (const [path, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue;
    // Sizes must be what read_record_field reports: skip values that hold bytes or RS-cut text.
    if (typeof value === "object" && (holdsBinary(value) || holdsCutText(path, previews))) continue;
    const size =
      previews?.[path]?.size_chars ?? codePoints(typeof value === "string" ? value : canonicalJson(value));
    if (size > SMALL_FIELD_CHARS) out.push({ path, size });
  }
  return out.sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1)).slice(0, LARGE_FIELDS_SHOWN);
}

/** Shorten text until the whole document (and its JSON mirror) stays under the result cap. */
function fitText(
  id: string,
  text: string,
  metadata: Record<string, unknown>,
  options: { providerUrl: string | null },
): string {
  let current = text;
  const overhead = JSON.stringify({ id, metadata, url: options.providerUrl }).length + 2_000;
  while (JSON.stringify(current).length + overhead > MAX_RESULT_CHARS && current.length > 0) {
    current = sliceCodePoints(current, Math.floor(codePoints(current) / 2));
  }
  return current;
}
