// Full-text search of the SQLite store: FTS5 over normalised tokens, restricted per scope to the
// granted search fields by a column filter; candidates are the scope's visible matches (all, or
// the newest rankWindow walked in rowid order without bm25()), scored by granted-field coverage as
// core/search-ranking.ts defines, with honest recall and a visible-only matched_estimate.
import { type StreamScope, scopeGrantsTime } from "../../core/grant.js";
import { ESTIMATE_EXTRA, matchedEstimate } from "../../core/search-ranking.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, type SqlPart, scopeWhere } from "./scope-sql.js";
import { type Candidate, describeHit, grantedColumns } from "./search-hits.js";
import { layoutFields, searchTable } from "./search-tables.js";
import { coverageExpr, matchAllExpr } from "./search-text.js";

/** Byte-order comparison of UTF-8 strings (code-point order), as Postgres COLLATE "C" does. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function compareHits(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.time !== b.time) {
    if (a.time === null) return 1;
    if (b.time === null) return -1;
    return a.time < b.time ? 1 : -1;
  }
  return (
    compareCodePoints(a.connection_id, b.connection_id) ||
    compareCodePoints(a.stream, b.stream) ||
    compareCodePoints(a.record_id, b.record_id)
  );
}

interface ScopeCandidates {
  rows: Candidate[];
  /** Matches in the ranked window (at most rankWindow). */
  total: number;
  complete: boolean;
  estimate: number;
}

/** True when the scope sees every connection of its connector (then the FTS table alone is exact). */
function seesAllConnections(db: SqliteDb, scope: StreamScope): boolean {
  const ids = db
    .stmt("SELECT connection_id FROM connections WHERE connector_key = ?")
    .pluck()
    .all(scope.connectorKey) as string[];
  return ids.every((id) => scope.connectionIds.includes(id));
}

/** A scope's best `k` candidates in the full order, and what its window holds. */
function scopeCandidates(
  db: SqliteDb,
  scope: StreamScope,
  query: SearchQuery & { k: number },
): ScopeCandidates {
  const none = { rows: [], total: 0, complete: true, estimate: 0 };
  const info = searchTable(db, scope.connectorKey, scope.stream.name);
  if (!info) return none;
  const columns = grantedColumns(scope, info);
  if (columns.length === 0) return none;
  const table = info.name;
  // With every indexed column granted the column filter is a no-op and is left out.
  const everyColumn = columns.length === layoutFields(info).length;
  const match = matchAllExpr(query.terms, everyColumn ? null : columns.map((c) => c.column));
  // The table holds only this stream's live rows (deletes remove them), so without a time range,
  // conditions or hidden connections it answers alone; FTS5 walks its doclist newest first and
  // stops at the window. Otherwise the join filters before the window is counted.
  const plain =
    !scope.since && !scope.until && query.conditions.length === 0 && seesAllConnections(db, scope);
  const where: SqlPart = plain ? { sql: "1", params: [] } : scopeWhere(scope, query.conditions);
  const from = plain ? table : `${table} JOIN records r ON r.id = ${table}.rowid`;
  // Score: granted fields where some term occurs, each asked of FTS5 once over the window's rowid
  // span (one doclist range scan per field); a single granted field scores 1 without asking.
  const inSpan = `SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN (SELECT lo FROM b) AND (SELECT hi FROM b)`;
  const score = columns.length === 1 ? "1" : columns.map(() => `(w.id IN (${inSpan}))`).join(" + ");
  const coverage = columns.length === 1 ? [] : columns.map((c) => coverageExpr(query.terms, c.column));
  // Ties are broken by time only where the grant shows it: an ungranted time_field must not order hits.
  const time = scopeGrantsTime(scope) ? "r.time" : "NULL";
  const rows = db
    .stmt(
      `WITH w AS MATERIALIZED (
         SELECT ${table}.rowid AS id FROM ${from}
         WHERE ${table} MATCH ? AND ${where.sql} ORDER BY ${table}.rowid DESC LIMIT ?),
       b AS MATERIALIZED (SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM w)
       SELECT w.id, ${score} AS score, r.connection_id, r.connector_key, r.stream, r.record_id, ${time} AS time,
              r.emitted_at, r.deleted, (SELECT n FROM b) AS total, (SELECT lo FROM b) AS oldest
       FROM w JOIN records r ON r.id = w.id
       ORDER BY score DESC, ${time} DESC, r.connection_id, r.stream, r.record_id LIMIT ?`,
    )
    .all(match, ...where.params, query.rankWindow, ...coverage, query.k) as (Omit<
    Candidate,
    "scope" | "table" | "columns"
  > & { deleted: number; total: number; oldest: number })[];
  const total = rows.length ? rows[0].total : 0;
  // Backstop: the index holds only live rows of the stream; anything else is dropped.
  const candidates: Candidate[] = rows
    .filter(
      (r) =>
        !r.deleted &&
        r.stream === scope.stream.name &&
        r.connector_key === scope.connectorKey &&
        scope.connectionIds.includes(r.connection_id),
    )
    .map(({ deleted: _d, total: _t, oldest: _o, ...r }) => ({ ...r, scope, table, columns }));
  if (total < query.rankWindow) return { rows: candidates, total, complete: true, estimate: total };
  // The window is full: count older visible matches (capped) for recall and the estimate.
  const older = db
    .stmt(
      `SELECT count(*) FROM (SELECT 1 FROM ${from}
       WHERE ${table} MATCH ? AND ${table}.rowid < ? AND ${where.sql} ORDER BY ${table}.rowid DESC LIMIT ?)`,
    )
    .pluck()
    .get(match, rows[0].oldest, ...where.params, ESTIMATE_EXTRA) as number;
  if (older === 0) return { rows: candidates, total, complete: true, estimate: total };
  return { rows: candidates, total, complete: false, estimate: matchedEstimate(total, older) };
}

function searchInSnapshot(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  const live = normalizeScopes(scopes);
  if (query.terms.length === 0 || live.length === 0) {
    return { hits: [], hasMore: false, recall: { complete: true, rankingScope: "all_matches" } };
  }
  let complete = true;
  let estimate = 0;
  let total = 0;
  const candidates: Candidate[] = [];
  const end = query.offset + query.limit;
  for (const scope of live) {
    // Every hit of the page, plus one to know whether more follow, is among each scope's best k.
    const found = scopeCandidates(db, scope, { ...query, k: end + 1 });
    complete &&= found.complete;
    estimate += found.estimate;
    total += found.total;
    for (const row of found.rows) candidates.push(row);
  }
  const ranked = candidates.sort(compareHits);
  const hits: StoredSearchHit[] = ranked.slice(query.offset, end).map((c) => describeHit(db, c, query.terms));
  return {
    hits,
    hasMore: total > end,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate },
  };
}

/** One read transaction: every statement of a search sees the same snapshot of index and manifest. */
export function search(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  if (db.raw.inTransaction) return searchInSnapshot(db, scopes, query);
  return db.raw.transaction(() => searchInSnapshot(db, scopes, query))();
}
