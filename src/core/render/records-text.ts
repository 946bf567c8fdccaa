// content[] text of query_records: a header with every paging handle, then up to five records
// as one-line JSON with long strings cut and their read_record_field continuation, ≤ 1,800 bytes.
import type { ListEnvelope, WireRecord } from "../wire.js";
import { LIST_TEXT_BYTES, TEXT_RECORDS_SHOWN, utf8Bytes } from "./budget.js";
import { type BinaryFields, cutPayload } from "./record-preview.js";

const TEXT_PREVIEW_STEPS = [160, 64, 24];
/** Last resort for a single record that does not fit even with 24-char previews. */
const TEXT_PREVIEW_MIN = 8;
const CUT_HINT =
  "cut {field:[shown,total]}: continue with read_record_field {id, field_path, offset_chars:shown}";

export interface RecordsTextOptions {
  stream: string;
  /** The page size actually asked of the RS when the adapter had to reduce it. */
  reducedLimit?: number;
  narrowed: boolean;
  /** Binary fields of the record's stream row (shown as metadata, never inlined). */
  binaryFor?: (record: WireRecord) => BinaryFields | undefined;
}

/**
 * Where the text's own continuation resumes: with k of n records shown, the RS's resume point
 * after record k (`meta.resume_points`, asked for by query_records), so paging by what the text
 * shows skips nothing; with every record shown (or no resume points), the page's own handles.
 */
function textContinuation(
  envelope: ListEnvelope<WireRecord>,
  shown: number,
): { hasMore: boolean; cursor: string | null; changes?: string | null; resumes: boolean } {
  const changes = envelope.next_changes_since !== undefined;
  const points = envelope.meta.resume_points as (string | null)[] | undefined;
  const point = shown < envelope.data.length ? points?.[shown - 1] : undefined;
  if (typeof point === "string") {
    return changes
      ? { hasMore: true, cursor: null, changes: point, resumes: true }
      : { hasMore: true, cursor: point, resumes: true };
  }
  return {
    hasMore: envelope.has_more,
    cursor: envelope.next_cursor ?? null,
    ...(changes ? { changes: envelope.next_changes_since ?? null } : {}),
    resumes: false,
  };
}

export function recordsHeader(
  envelope: ListEnvelope<WireRecord>,
  options: RecordsTextOptions & { shown?: number },
): string {
  const total = envelope.data.length;
  const shown = Math.min(options.shown ?? total, total);
  const next = textContinuation(envelope, shown);
  const parts = [
    next.resumes
      ? `showing ${shown} of ${total} records from ${options.stream}`
      : `${total} records from ${options.stream}`,
    `has_more=${next.hasMore}`,
    `next_cursor=${next.cursor ?? "null"}`,
  ];
  if (next.changes !== undefined) parts.push(`next_changes_since=${next.changes ?? "null"}`);
  if (envelope.meta.count !== undefined) parts.push(`count=${envelope.meta.count}`);
  if (options.reducedLimit !== undefined)
    parts.push(`limit reduced to ${options.reducedLimit} to fit the result budget`);
  for (const w of envelope.meta.warnings ?? []) parts.push(`warning ${w.code}`);
  return parts.join(" · ");
}

function recordLine(record: WireRecord, maxChars: number, options: RecordsTextOptions): string {
  const { data, cut } = cutPayload(record.data, maxChars, {
    previews: record.field_previews,
    binary: options.binaryFor?.(record),
    stub: (b) => `[binary${b.mimeType ? ` ${b.mimeType}` : ""}, ${b.sizeChars} chars, not inlined]`,
    keepShort: maxChars > TEXT_PREVIEW_MIN ? 64 : 0,
  });
  // The id already carries the record id: a payload field equal to it is printed once, there.
  for (const [key, value] of Object.entries(data)) if (value === record.record_id) delete data[key];
  const line: Record<string, unknown> = { id: record.id };
  if (!options.narrowed) {
    // `time` only when no payload field already shows the same instant.
    if (record.time && !Object.values(record.data).includes(record.time)) line.time = record.time;
    line.source = record.display_name;
  }
  if (record.deleted) line.deleted = true;
  line.data = data;
  if (cut.length > 0) line.cut = Object.fromEntries(cut.map((c) => [c.path, [c.shown, c.sizeChars]]));
  return JSON.stringify(line);
}

/**
 * The most records (up to five) at the longest preview (≥ 24 chars) that fits: a model that asked
 * for three records should see three short previews rather than one long one and a second call.
 */
function chooseLines(records: WireRecord[], budget: number, options: RecordsTextOptions): string[] {
  // Each record's line at each step is rendered (and measured) once, however many k try it.
  const rendered = TEXT_PREVIEW_STEPS.map(() => [] as { line: string; bytes: number }[]);
  const lineAt = (s: number, i: number) => {
    rendered[s][i] ??= (() => {
      const line = recordLine(records[i], TEXT_PREVIEW_STEPS[s], options);
      return { line, bytes: utf8Bytes(line) };
    })();
    return rendered[s][i];
  };
  for (let k = Math.min(TEXT_RECORDS_SHOWN, records.length); k >= 1; k--) {
    for (let s = 0; s < TEXT_PREVIEW_STEPS.length; s++) {
      let bytes = 0;
      for (let i = 0; i < k; i++) bytes += lineAt(s, i).bytes + 1;
      if (bytes <= budget) return rendered[s].slice(0, k).map((r) => r.line);
    }
  }
  if (records.length === 0) return [];
  const tiny = recordLine(records[0], TEXT_PREVIEW_MIN, options);
  if (utf8Bytes(tiny) + 1 <= budget) return [tiny];
  return [wideLine(records[0], budget, options)];
}

/**
 * A record with too many fields for the text: its first fields, then how many are left, which,
 * and where every one of them is named and read. The id is always printed whole.
 */
function wideLine(record: WireRecord, budget: number, options: RecordsTextOptions): string {
  const line = JSON.parse(
    recordLine(record, TEXT_PREVIEW_STEPS[TEXT_PREVIEW_STEPS.length - 1], options),
  ) as Record<string, unknown> & {
    data: Record<string, unknown>;
    cut?: Record<string, unknown>;
  };
  const keys = Object.keys(line.data);
  const render = (n: number) => {
    const kept = new Set(keys.slice(0, n));
    const out: Record<string, unknown> = {
      ...line,
      data: Object.fromEntries(keys.slice(0, n).map((k) => [k, line.data[k]])),
    };
    const cut = Object.entries(line.cut ?? {}).filter(([path]) => kept.has(path.split(".")[0]));
    if (cut.length > 0) out.cut = Object.fromEntries(cut);
    else delete out.cut;
    out.fields_omitted = `${keys.length - n} more (${keys[n]} … ${keys[keys.length - 1]}): fetch this id names them; read one with read_record_field {id, field_path}`;
    return JSON.stringify(out);
  };
  let lo = 0;
  let hi = keys.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (utf8Bytes(render(mid)) + 1 <= budget) lo = mid;
    else hi = mid - 1;
  }
  const best = render(lo);
  if (utf8Bytes(best) + 1 <= budget) return best;
  return JSON.stringify({
    id: record.id,
    fields_omitted: `${keys.length} fields: fetch this id names them; read one with read_record_field {id, field_path}`,
  });
}

/**
 * What to do next, naming only continuations this page really has: next_cursor in list mode,
 * next_changes_since in changes mode (where next_cursor is always null).
 */
function pageFooter(envelope: ListEnvelope<WireRecord>, shown: number): string {
  const changes = envelope.next_changes_since !== undefined && envelope.next_changes_since !== null;
  const total = envelope.data.length;
  if (shown < total && textContinuation(envelope, shown).resumes) {
    // The handles in the header resume right after the last record shown here.
    return changes
      ? `page with changes_since=next_changes_since: it resumes at change ${shown + 1} of these ${total}`
      : `page with cursor=next_cursor: it resumes at record ${shown + 1} of these ${total}`;
  }
  if (shown < total) {
    // Text shows at most TEXT_RECORDS_SHOWN records; below that, narrower fields fit more.
    const narrower = shown < TEXT_RECORDS_SHOWN ? "fields:[…] or " : "";
    const redo = `to see them, ask again with ${narrower}limit=${shown} and page on from there`;
    // Either handle resumes after the whole page, so it would skip the records not shown here.
    if (changes)
      return `showing ${shown} of ${total}; next_changes_since skips the other ${total - shown}: ${redo} and the same changes_since`;
    if (envelope.next_cursor)
      return `showing ${shown} of ${total}; next_cursor skips the other ${total - shown}: ${redo}`;
    return `showing ${shown} of ${total}; ${redo}`;
  }
  if (changes)
    return envelope.has_more
      ? "page with changes_since=next_changes_since"
      : "no more changes now; later, ask again with changes_since=next_changes_since";
  if (envelope.has_more && envelope.next_cursor) return "page with cursor=next_cursor";
  return "end of results";
}

/** The whole text block; `envelope.data` is the page exactly as the RS answered it. */
export function renderRecordsText(envelope: ListEnvelope<WireRecord>, options: RecordsTextOptions): string {
  // The header names the continuation of the records shown, known only once they are chosen: the
  // budget is set by the longest header any choice could print.
  let widest = 0;
  for (let shown = 1; shown <= Math.min(TEXT_RECORDS_SHOWN, envelope.data.length); shown++)
    widest = Math.max(widest, utf8Bytes(recordsHeader(envelope, { ...options, shown })));
  widest = Math.max(widest, utf8Bytes(recordsHeader(envelope, options)));
  const budget = LIST_TEXT_BYTES - widest - utf8Bytes(CUT_HINT) - 160;
  const lines = chooseLines(envelope.data, budget, options);
  const header = recordsHeader(envelope, { ...options, shown: lines.length });
  const footerFor = (shown: number) => pageFooter(envelope, shown);
  const out = [header, ...lines];
  if (lines.some((l) => l.includes('"cut":'))) out.push(CUT_HINT);
  out.push(footerFor(lines.length));
  return out.join("\n");
}
