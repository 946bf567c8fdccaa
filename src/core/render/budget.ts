// The MCP footprint budgets of 30-mcp.md and the helpers that measure rendered results against them.

/** No tool result, in either channel, may exceed this many characters. */
export const MAX_RESULT_CHARS = 40_000;
/** content[] text of query_records and search. */
export const LIST_TEXT_BYTES = 1_800;
export const AGGREGATE_SCALAR_CHARS = 400;
export const AGGREGATE_GROUPED_CHARS = 1_200;
export const SCHEMA_INDEX_TEXT_BYTES = 12_000;
export const SCHEMA_INDEX_DETAILED_ROWS = 50;
export const TOOLS_LIST_BYTES = 12_288;
export const INSTRUCTIONS_CHARS = 1_200;
export const DESCRIPTION_CHARS = 700;
/** Text fields longer than this are cut in query_records structured results (ladder tier 1). */
export const STRUCTURED_PREVIEW_CHARS = 2_048;
/** Shrinking steps for previews before the adapter asks the RS for a smaller page. */
export const PREVIEW_LADDER = [2_048, 512, 128, 32] as const;
export const FETCH_TEXT_CHARS = 16_384;
export const FETCH_JSON_CHARS = 4_096;
export const WINDOW_DEFAULT_CHARS = 4_096;
export const WINDOW_MAX_CHARS = 16_384;
export const CONTEXT_DEFAULT_CHARS = 2_048;
export const CONTEXT_MAX_CHARS = 8_192;
export const TEXT_RECORDS_SHOWN = 5;
/** Titles (search hits, fetch documents) in either channel. */
export const MAX_TITLE_CHARS = 200;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Characters of a value as the structured channel carries it (its JSON serialisation). */
export function jsonChars(value: unknown): number {
  return JSON.stringify(value).length;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Unicode code points (the RS's unit for windows and previews), as `for…of` counts them. */
export function codePoints(text: string): number {
  // Most text has no surrogates: then every code unit is one code point. Otherwise each pair is
  // one code point and a lone surrogate counts alone.
  if (!SURROGATE.test(text)) return text.length;
  return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

/** The first `max` code points of `text` (never splits a surrogate pair). */
export function sliceCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  // Without a surrogate among the first `max` code units, they are the first `max` code points.
  const head = text.slice(0, Math.max(0, Math.ceil(max)));
  if (!SURROGATE.test(head)) return head;
  let i = 0;
  for (let n = 0; n < max && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, i);
}

/** `text` cut to at most `maxBytes` UTF-8 bytes on a code-point boundary, with "…" when cut. */
export function clipBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let out = "";
  let used = 0;
  for (const ch of text) {
    const size = utf8Bytes(ch);
    if (used + size + 3 > maxBytes) break;
    out += ch;
    used += size;
  }
  return `${out}…`;
}

/** A title on one line, at most MAX_TITLE_CHARS code points ("…" marks a cut). */
export function boundTitle(title: string): string {
  const line = title.replace(/\s+/g, " ").trim();
  if (codePoints(line) <= MAX_TITLE_CHARS) return line;
  return `${sliceCodePoints(line, MAX_TITLE_CHARS - 1)}…`;
}
