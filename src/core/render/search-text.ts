// content[] text of search: one summary line with paging handles and the first fetch id, then
// one short block per hit while the 1,800-byte budget lasts, then how to fetch.

import { tailUnits } from "../clip-text.js";
import type { ListEnvelope, SearchHit } from "../wire.js";
import { clipBytes, LIST_TEXT_BYTES, utf8Bytes } from "./budget.js";
import { embedsConnection } from "./record-ref.js";

export interface SearchResultRow {
  id: string;
  title: string;
  url: string;
  connection_id: string;
  connector_key: string;
  display_name: string;
  stream: string;
  record_id: string;
  time: string | null;
  snippet: string | null;
  /** The field the snippet was cut from (read it whole with read_record_field). */
  snippet_field: string | null;
  matched_fields: string[];
  score: number;
}

/** Balanced highlight: drop unmatched <mark>/</mark> tags a clip may have produced. */
export function balanceMarks(text: string): string {
  let open = false;
  let out = "";
  for (const part of text.split(/(<\/?mark>)/)) {
    if (part === "<mark>") {
      if (!open) {
        out += part;
        open = true;
      }
    } else if (part === "</mark>") {
      if (open) {
        out += part;
        open = false;
      }
    } else out += part;
  }
  return open ? `${out}</mark>` : out;
}

/** A snippet cut to `maxBytes` with no half tag and balanced <mark> pairs. */
export function clipSnippet(snippet: string, maxBytes: number): string {
  let text = snippet.replace(/\s+/g, " ");
  const mark = text.indexOf("<mark>");
  // Keep the first highlight visible: start shortly before it when it lies past the budget.
  if (mark > maxBytes / 3) text = `…${tailUnits(text, mark - 40)}`;
  const clipped = clipBytes(text, maxBytes).replace(/<\/?[a-z]*…$/, "…");
  return balanceMarks(clipped);
}

function sourceMix(rows: SearchResultRow[]): string | null {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.connection_id, (counts.get(r.connection_id) ?? 0) + 1);
  if (counts.size < 2) return null;
  const labels = new Map(rows.map((r) => [r.connection_id, r.display_name]));
  return [...counts.entries()].map(([c, n]) => `${clipBytes(labels.get(c) ?? c, 24)}=${n}`).join(",");
}

/** Where the paging handles go in the summary line (known once the shown hits are). */
const HANDLES = "\u0000handles\u0000";

export function renderSearchText(
  envelope: ListEnvelope<SearchHit>,
  rows: SearchResultRow[],
  options: { reducedLimit?: number } = {},
): string {
  // With k of n hits shown, the text's next_cursor is the RS's resume point after hit k (issue 20
  // item 4): paging by it skips no hit the text did not show. It is chosen once the blocks are.
  const points = (envelope.meta.resume_points as (string | null)[] | undefined) ?? [];
  const resumeAfter = (shown: number) =>
    shown < rows.length && typeof points[shown - 1] === "string" ? (points[shown - 1] as string) : null;
  const handles = (shown: number) => {
    const resume = resumeAfter(shown);
    return resume
      ? `showing ${shown} of ${rows.length} hits · has_more=true · next_cursor=${resume}`
      : `${rows.length} hits · has_more=${envelope.has_more} · next_cursor=${envelope.next_cursor ?? "null"}`;
  };
  const widestHandles = Math.max(
    utf8Bytes(handles(rows.length)),
    ...rows.map((_, i) => utf8Bytes(handles(i + 1))),
  );
  const summary = [HANDLES];
  if (rows.length > 0) summary.push(`first_fetch_id=${rows[0].id}`);
  const unmatched = envelope.meta.unmatched_terms;
  if (rows.length === 0 && Array.isArray(unmatched) && unmatched.length > 0)
    summary.push(`no visible record holds: ${unmatched.map((t) => clipBytes(String(t), 40)).join(", ")}`);
  const mix = sourceMix(rows);
  if (mix) summary.push(`source_mix=${mix}`);
  if (options.reducedLimit !== undefined)
    summary.push(`limit reduced to ${options.reducedLimit} to fit the result budget`);
  const recall = envelope.meta.recall;
  if (recall && !recall.complete)
    summary.push(
      "recall incomplete: ranked the best candidates (rarest words first); narrow with streams, filter or a time range",
    );
  const headFor = (shown: number) => summary.join(" · ").replace(HANDLES, handles(shown));
  const tail = "fetch a hit by passing its id as-is; pass connection_id only when it is shown separately";
  let used = utf8Bytes(summary.join(" · ")) - utf8Bytes(HANDLES) + widestHandles + utf8Bytes(tail) + 2;
  const blocks: string[] = [];
  for (const [index, row] of rows.entries()) {
    const source = `${row.stream} · ${clipBytes(row.display_name, 32)} (${row.connector_key})`;
    const lines = [
      `[${index + 1}] id=${row.id}`,
      `  ${clipBytes(row.title, 80)} | ${source} | ${row.time ?? "no time"}`,
    ];
    if (!embedsConnection(row.id) && row.connection_id) lines.push(`  connection_id=${row.connection_id}`);
    if (row.snippet)
      lines.push(`  ${row.snippet_field ? `${row.snippet_field}: ` : ""}${clipSnippet(row.snippet, 160)}`);
    const block = lines.join("\n");
    // 130 bytes stay free for the "more hits not shown" line.
    if (used + utf8Bytes(block) + 1 > LIST_TEXT_BYTES - 130) {
      if (blocks.length === 0) {
        const idOnly = `[1] id=${row.id}`;
        blocks.push(idOnly);
        used += utf8Bytes(idOnly) + 1;
      }
      break;
    }
    blocks.push(block);
    used += utf8Bytes(block) + 1;
  }
  const hidden = rows.length - blocks.length;
  const redo = `to see them, search again with limit=${blocks.length} and page on from there`;
  const resumes = resumeAfter(blocks.length) !== null;
  const more =
    hidden === 0
      ? []
      : resumes
        ? [
            `(${hidden} more hits not shown here: page with cursor=next_cursor, it resumes at hit ${blocks.length + 1})`,
          ]
        : // Without resume points, next_cursor resumes after every hit of this page, shown or not.
          [
            envelope.next_cursor
              ? `(${hidden} more hits not shown here, and next_cursor skips them: ${redo})`
              : `(${hidden} more hits not shown here: ${redo})`,
          ];
  return [headFor(blocks.length), ...blocks, ...more, tail].join("\n");
}
