// Per-hit details for Postgres search, mirroring sqlite/search-hits.ts: matched fields (granted
// search fields where any term occurs), a snippet from the first matched field (title field last)
// built by core/snippet.ts, and the title when granted.
import type { StreamScope } from "../../core/grant.js";
import { getPath, isPathGranted } from "../../core/projection.js";
import type { SearchTerm } from "../../core/search-query.js";
import { buildSnippet } from "../../core/snippet.js";
import type { StoredSearchHit } from "../store.js";
import type { Queryable } from "./pool.js";
import { grantedSearchFields } from "./search-sql.js";
import { readTextRange } from "./text-store.js";

const MAX_SNIPPET_CHUNKS = 32;
const TITLE_CHARS = 512;

type HitDetails = Pick<StoredSearchHit, "title" | "snippet" | "matchedFields">;

export interface HitRow {
  rid: string;
  stream: string;
  connection_id: string;
  payload: Record<string, unknown>;
  matched: string[] | null; // search fields with a row matching any term
}

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

async function chunkedSnippet(db: Queryable, ref: { rid: string; path: string }, terms: SearchTerm[]) {
  const { rows } = await db.query<{ body: string }>(
    "SELECT body FROM text_chunks WHERE rid = $1 AND path = $2 AND seq < $3 ORDER BY seq",
    [ref.rid, ref.path, MAX_SNIPPET_CHUNKS],
  );
  for (const row of rows) {
    const snippet = buildSnippet(row.body, terms);
    if (snippet !== null) return snippet;
  }
  return null;
}

async function titleOf(db: Queryable, row: HitRow, scope: StreamScope): Promise<string | null> {
  const field = scope.stream.title_field;
  if (!field || !isPathGranted(field, scope.fields)) return null;
  if ((scope.stream.text_fields ?? []).includes(field)) {
    const { rows } = await db.query<{ size_chars: string }>(
      "SELECT size_chars FROM text_fields WHERE rid = $1 AND path = $2",
      [row.rid, field],
    );
    if (rows.length === 0) return null;
    return readTextRange(
      db,
      { rid: row.rid, path: field },
      { start: 0, end: Math.min(Number(rows[0].size_chars), TITLE_CHARS) },
    );
  }
  const value = getPath(row.payload, field);
  return typeof value === "string" ? value : null;
}

export async function hitDetails(
  db: Queryable,
  row: HitRow,
  options: { scope: StreamScope; terms: SearchTerm[] },
): Promise<HitDetails> {
  const { scope, terms } = options;
  const found = new Set(row.matched ?? []);
  const matched = grantedSearchFields(scope).filter((f) => found.has(f));
  const titleField = scope.stream.title_field;
  const ordered = [...matched.filter((f) => f !== titleField), ...matched.filter((f) => f === titleField)];
  let snippet: HitDetails["snippet"] = null;
  for (const field of ordered) {
    let text: string | null;
    if ((scope.stream.text_fields ?? []).includes(field))
      text = await chunkedSnippet(db, { rid: row.rid, path: field }, terms);
    else {
      const display = displayText(getPath(row.payload, field));
      text = display === null ? null : buildSnippet(display, terms);
    }
    if (text !== null) {
      snippet = { field, text };
      break;
    }
  }
  return { title: await titleOf(db, row, scope), snippet, matchedFields: matched };
}
