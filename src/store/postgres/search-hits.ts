// Page details for Postgres search, mirroring sqlite/search-hits.ts: matched fields (granted
// search fields where any term occurs), a snippet from the first matched field (title field last)
// built by core/snippet.ts, and the title when granted. Read in batches for the page's hits only.
import { windowMeta } from "../../core/canonical-json.js";
import type { StreamScope } from "../../core/grant.js";
import { getPath, isPathGranted } from "../../core/projection.js";
import { positiveClauses, type SearchClause } from "../../core/search-query.js";
import { buildSnippetSpan, type SnippetSpan } from "../../core/snippet.js";
import { CHUNK_CHARS } from "../../core/text-chunks.js";
import type { StoredSearchHit } from "../store.js";
import type { Queryable } from "./pool.js";
import { anyClauseQuery, grantedSearchFields } from "./search-sql.js";
import { readTextPrefixes, type TextPrefix } from "./text-store.js";

const MAX_SNIPPET_CHUNKS = 32;

/** A ranked candidate that can reach the page, with what the full order needs. */
export interface Candidate {
  rid: string;
  connection_id: string;
  stream: string;
  record_id: string;
  time: string | null;
  score: number;
  scope: StreamScope;
}
const TITLE_CHARS = 512;

type HitDetails = Pick<StoredSearchHit, "title" | "snippet" | "matchedFields" | "emittedAt">;

/** What a snippet is cut from for a non-chunked field (objects have no display text). */
function displayText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(displayText).filter((v): v is string => v !== null);
    return parts.length ? parts.join(", ") : null;
  }
  return null;
}

/** A snippet from chunks after the first (the first chunk is tried from the batch read). */
async function laterChunkSnippet(db: Queryable, ref: { rid: string; path: string }, clauses: SearchClause[]) {
  const { rows } = await db.query<{ seq: number; body: string }>(
    "SELECT seq, body FROM text_chunks WHERE rid = $1 AND path = $2 AND seq >= 1 AND seq < $3 ORDER BY seq",
    [ref.rid, ref.path, MAX_SNIPPET_CHUNKS],
  );
  for (const row of rows) {
    const span = buildSnippetSpan(row.body, clauses);
    // Chunk `seq` starts at code point seq × CHUNK_CHARS of the field.
    const offset = Number(row.seq) * CHUNK_CHARS;
    if (span !== null)
      return { ...span, startChars: offset + span.startChars, endChars: offset + span.endChars };
  }
  return null;
}

interface PageRow {
  rid: string;
  emitted_at: string;
  payload: Record<string, unknown>;
  matched: string[] | null; // search fields with a row matching any term
}

function titleOf(
  scope: StreamScope,
  row: PageRow,
  texts: Map<string, TextPrefix> | undefined,
): string | null {
  const field = scope.stream.title_field;
  if (!field || !isPathGranted(field, scope.fields)) return null;
  if ((scope.stream.text_fields ?? []).includes(field)) {
    const text = texts?.get(field);
    return text ? sliceChars(text.text, TITLE_CHARS) : null;
  }
  const value = getPath(row.payload, field);
  return typeof value === "string" ? value : null;
}

/** The first `n` code points of a string. */
function sliceChars(text: string, n: number): string {
  return Array.from(text.slice(0, 2 * n))
    .slice(0, n)
    .join("");
}

/** Title, snippet and matched fields of each page hit, in page order (its own two statements). */
export async function pageDetails(
  db: Queryable,
  page: Candidate[],
  clauses: SearchClause[],
): Promise<HitDetails[]> {
  if (page.length === 0) return [];
  const rids = page.map((c) => c.rid);
  const fields = [...new Set(page.flatMap((c) => grantedSearchFields(c.scope)))];
  const { rows } = await db.query<PageRow>(
    `SELECT r.rid, r.emitted_at, r.payload,
            (SELECT array_agg(DISTINCT d.field) FROM search_docs d
             WHERE d.rid = r.rid AND d.field = ANY($2::text[]) AND d.tsv @@ $3::tsquery) AS matched
     FROM records r WHERE r.rid = ANY($1::bigint[])`,
    [rids, fields, anyClauseQuery(positiveClauses(clauses))],
  );
  const byRid = new Map(rows.map((r) => [r.rid, r]));
  // Text fields the page may need: matched ones (for snippets) and granted text titles.
  const textPaths = new Set<string>();
  for (const c of page) {
    const textFields = c.scope.stream.text_fields ?? [];
    for (const f of byRid.get(c.rid)?.matched ?? []) if (textFields.includes(f)) textPaths.add(f);
    const title = c.scope.stream.title_field;
    if (title && textFields.includes(title)) textPaths.add(title);
  }
  const texts = await readTextPrefixes(db, rids, { paths: [...textPaths], maxChars: CHUNK_CHARS });
  return describeHits(db, page, clauses, byRid, texts);
}

async function describeHits(
  db: Queryable,
  page: Candidate[],
  clauses: SearchClause[],
  byRid: Map<string, PageRow>,
  texts: Map<string, Map<string, TextPrefix>>,
): Promise<HitDetails[]> {
  const out: HitDetails[] = [];
  for (const c of page) {
    const row = byRid.get(c.rid) ?? { rid: c.rid, emitted_at: "", payload: {}, matched: [] };
    const scope = c.scope;
    const found = new Set(row.matched ?? []);
    const matched = grantedSearchFields(scope).filter((f) => found.has(f));
    const titleField = scope.stream.title_field;
    const ordered = [...matched.filter((f) => f !== titleField), ...matched.filter((f) => f === titleField)];
    let snippet: HitDetails["snippet"] = null;
    for (const field of ordered) {
      let text: SnippetSpan | { text: string; startChars?: undefined; endChars?: undefined } | null;
      // The whole field's size and digest, as its field window reports them.
      let whole: { sizeChars: number; digest: string } | null;
      if ((scope.stream.text_fields ?? []).includes(field)) {
        const first = texts.get(c.rid)?.get(field);
        whole = first ? { sizeChars: first.sizeChars, digest: first.digest } : null;
        text = first ? buildSnippetSpan(first.text, clauses) : null;
        if (text === null && first && first.sizeChars > CHUNK_CHARS)
          text = await laterChunkSnippet(db, { rid: c.rid, path: field }, clauses);
      } else {
        const value = getPath(row.payload, field);
        whole = windowMeta(value);
        const display = displayText(value);
        const span = display === null ? null : buildSnippetSpan(display, clauses);
        // A list or number shown as text is not what a window of the field reads: no range for it.
        text = span && typeof value !== "string" ? { text: span.text } : span;
      }
      if (text !== null) {
        const range =
          text.startChars === undefined ? {} : { startChars: text.startChars, endChars: text.endChars };
        if (whole) snippet = { field, text: text.text, ...whole, ...range };
        break;
      }
    }
    out.push({
      title: titleOf(scope, row, texts.get(c.rid)),
      snippet,
      matchedFields: matched,
      emittedAt: row.emitted_at,
    });
  }
  return out;
}
