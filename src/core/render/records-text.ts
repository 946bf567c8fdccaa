// content[] text of query_records: a header with every paging handle, then up to five records
// as one-line JSON with long strings cut and their read_record_field continuation, ≤ 1,800 bytes.
import type { ListEnvelope, WireRecord } from "../wire.js";
import { LIST_TEXT_BYTES, TEXT_RECORDS_SHOWN, utf8Bytes } from "./budget.js";
import { cutPayload } from "./record-preview.js";

const TEXT_PREVIEW_STEPS = [160, 64, 24, 8];

export interface RecordsTextOptions {
  stream: string;
  /** The page size actually asked of the RS when the adapter had to reduce it. */
  reducedLimit?: number;
  narrowed: boolean;
}

export function recordsHeader(envelope: ListEnvelope<WireRecord>, options: RecordsTextOptions): string {
  const parts = [
    `${envelope.data.length} records from ${options.stream}`,
    `has_more=${envelope.has_more}`,
    `next_cursor=${envelope.next_cursor ?? "null"}`,
  ];
  if (envelope.next_changes_since !== undefined)
    parts.push(`next_changes_since=${envelope.next_changes_since ?? "null"}`);
  if (envelope.meta.count !== undefined) parts.push(`count=${envelope.meta.count}`);
  if (options.reducedLimit !== undefined)
    parts.push(`limit reduced to ${options.reducedLimit} to fit the result budget`);
  for (const w of envelope.meta.warnings ?? []) parts.push(`warning ${w.code}`);
  return parts.join(" · ");
}

function recordLine(record: WireRecord, maxChars: number, narrowed: boolean): string {
  const { data, cut } = cutPayload(record.data, maxChars, record.field_previews);
  const line: Record<string, unknown> = { id: record.id };
  if (!narrowed) {
    if (record.time) line.time = record.time;
    line.source = record.display_name;
  }
  if (record.deleted) line.deleted = true;
  line.data = data;
  if (cut.length > 0) line.cut = Object.fromEntries(cut.map((c) => [c.path, [c.shown, c.sizeChars]]));
  return JSON.stringify(line);
}

/** The whole text block; `envelope.data` is the page exactly as the RS answered it. */
export function renderRecordsText(envelope: ListEnvelope<WireRecord>, options: RecordsTextOptions): string {
  const header = recordsHeader(envelope, options);
  const anyCut =
    "cut {field:[shown,total]}: continue with read_record_field {id, field_path, offset_chars:shown}";
  const footerFor = (shown: number) =>
    shown < envelope.data.length
      ? `showing ${shown} of ${envelope.data.length}; narrow with fields or limit, or page with cursor=next_cursor`
      : envelope.has_more
        ? "page with cursor=next_cursor"
        : "end of results";
  const lines: string[] = [];
  let used = utf8Bytes(header) + utf8Bytes(anyCut) + 120;
  for (const record of envelope.data.slice(0, TEXT_RECORDS_SHOWN)) {
    let chosen: string | null = null;
    for (const step of TEXT_PREVIEW_STEPS) {
      const line = recordLine(record, step, options.narrowed);
      if (used + utf8Bytes(line) + 1 <= LIST_TEXT_BYTES) {
        chosen = line;
        break;
      }
    }
    if (chosen === null && lines.length === 0) {
      // The first id is always printed whole, even when its payload cannot fit.
      chosen = JSON.stringify({ id: record.id, data: "omitted: fetch this id or narrow with fields" });
    }
    if (chosen === null) break;
    lines.push(chosen);
    used += utf8Bytes(chosen) + 1;
  }
  const out = [header, ...lines];
  if (lines.some((l) => l.includes('"cut":'))) out.push(anyCut);
  out.push(footerFor(lines.length));
  return out.join("\n");
}
