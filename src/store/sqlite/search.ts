// Full-text search of the SQLite store: the primitives core/search-ranking.ts ranks from — each
// positive clause's visible matches, newest first (FTS5 over pdpp's index terms, restricted to the
// scope's granted search fields by a column filter, joined with records for visibility when the
// table alone is not exact), and the chosen candidates' keys and granted texts — then the page's
// hits described (search-hits.ts). One read transaction: every statement sees one snapshot.
import type { StreamScope } from "../../core/grant.js";
import { positiveClauses } from "../../core/search-query.js";
import {
  type ClauseHits,
  displayScore,
  enumerateLimit,
  offerFor,
  pageOf,
  planCandidates,
  scoreCandidates,
  windowOf,
} from "../../core/search-ranking.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, type SqlParam, scopeWhere } from "./scope-sql.js";
import { candidateDocs } from "./search-docs.js";
import { type Candidate, describeHit, grantedColumns } from "./search-hits.js";
import { layoutFields, searchTable } from "./search-tables.js";
import { clauseMatchExpr } from "./search-text.js";

/** Byte-order comparison of UTF-8 strings (code-point order), as Postgres COLLATE "C" does. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The contract's order: score desc, time desc (nulls last), connection, stream, record id. */
export function compareHits(a: Candidate, b: Candidate): number {
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

/** True when the scope sees every connection of its connector (then the FTS table alone is exact). */
function seesAllConnections(db: SqliteDb, scope: StreamScope): boolean {
  const ids = db
    .stmt("SELECT connection_id FROM connections WHERE connector_key = ?")
    .pluck()
    .all(scope.connectorKey) as string[];
  return ids.every((id) => scope.connectionIds.includes(id));
}

/**
 * One scope's visible matches of each positive clause, newest first: every one when at most
 * `limit`, else the newest `rankWindow` and a count of limit + 1 (core/search-ranking.ts ClauseHits).
 * The newest rankWindow are read first; when they fill the window, one probe asks whether a match
 * lies past the limit (FTS5 walks the doclist in its own order, no ids reach JavaScript), and only
 * a clause within the limit reads all its ids. The probe has no rowid bound: a bound on the older
 * matches (as an earlier count had) made FTS5 walk them at twice the cost.
 */
export function scopeClauseHits(
  db: SqliteDb,
  scope: StreamScope,
  query: SearchQuery & { enumerate: number },
): { ids: number[]; count: number }[] | null {
  const info = searchTable(db, scope.connectorKey, scope.stream.name);
  if (!info) return null;
  const columns = grantedColumns(scope, info);
  if (columns.length === 0) return null;
  const table = info.name;
  // With every indexed column granted the column filter is a no-op and is left out.
  const filter = columns.length === layoutFields(info).length ? null : columns.map((c) => c.column);
  // The table holds only this stream's live rows, so without a time range, conditions or hidden
  // connections it answers alone; otherwise a join keeps the visible rows (through the covering
  // index when no condition reads the payload).
  const plain =
    !scope.since && !scope.until && query.conditions.length === 0 && seesAllConnections(db, scope);
  const where = plain ? { sql: "1", params: [] as SqlParam[] } : scopeWhere(scope, query.conditions);
  const records = query.conditions.length === 0 ? "records r INDEXED BY records_search_key" : "records r";
  const from = plain ? table : `${table} JOIN ${records} ON r.id = ${table}.rowid`;
  const matches = `FROM ${from} WHERE ${table} MATCH ? AND ${where.sql}`;
  const newestIds = db.stmt(`SELECT ${table}.rowid ${matches} ORDER BY ${table}.rowid DESC LIMIT ?`).pluck();
  // A row iff more than `OFFSET` matches are visible (OFFSET is bound: limit, i.e. limit + 1 exist).
  const pastLimit = db.stmt(`SELECT ${table}.rowid ${matches} LIMIT 1 OFFSET ?`).pluck();
  const window = offerFor(query.offset, query.rankWindow);
  const limit1 = query.enumerate + 1;
  return positiveClauses(query.clauses).map((clause) => {
    const expr = clauseMatchExpr(clause, query.clauses, filter);
    const newest = newestIds.all(expr, ...where.params, window) as number[];
    // Counted up to limit + 1 whatever the window (a deeper page must see the same counts).
    if (newest.length < window || window >= limit1)
      return { ids: newest, count: Math.min(newest.length, limit1) };
    if (pastLimit.get(expr, ...where.params, query.enumerate) !== undefined)
      return { ids: newest, count: limit1 };
    const all = newestIds.all(expr, ...where.params, query.enumerate) as number[];
    return { ids: all, count: all.length };
  });
}

function searchInSnapshot(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  const live = normalizeScopes(scopes);
  const positive = positiveClauses(query.clauses);
  const empty: SearchResult = {
    hits: [],
    hasMore: false,
    recall: { complete: true, rankingScope: "all_matches" },
    unmatched: positive.map((c) => c.text),
  };
  if (positive.length === 0 || live.length === 0) return empty;
  const limit = enumerateLimit(query.rankWindow);
  const hits: ClauseHits[] = positive.map(() => ({ ids: [], count: 0, capped: false }));
  for (const scope of live) {
    const found = scopeClauseHits(db, scope, { ...query, enumerate: limit });
    found?.forEach((f, i) => {
      for (const id of f.ids) hits[i].ids.push(id);
      hits[i].count += f.count;
      if (f.count > limit) hits[i].capped = true;
    });
  }
  const unmatched = positive.filter((_, i) => hits[i].count === 0).map((c) => c.text);
  const plan = planCandidates(hits, query.rankWindow, windowOf(query.offset, query.rankWindow));
  const docs = candidateDocs(db, live, plan.ids);
  const scores = scoreCandidates(query.clauses, docs, plan);
  const ranked = docs.map((d, i) => ({ ...d.candidate, score: scores[i] })).sort(compareHits);
  const { start, end, hasMore, next } = pageOf(plan, ranked.length, query);
  const page: StoredSearchHit[] = ranked
    .slice(start, end)
    .map((c) => ({ ...describeHit(db, c, query.clauses), score: displayScore(c.score) }));
  return {
    hits: page,
    hasMore,
    ...(hasMore ? { nextOffset: next } : {}),
    recall: plan.complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: plan.seen },
    unmatched,
  };
}

/** One read transaction: every statement of a search sees the same snapshot of index and manifest. */
export function search(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  if (db.raw.inTransaction) return searchInSnapshot(db, scopes, query);
  return db.raw.transaction(() => searchInSnapshot(db, scopes, query))();
}
