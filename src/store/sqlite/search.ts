// Full-text search of the SQLite store: FTS5 over normalised tokens, restricted per scope to the
// granted search fields by a column filter; exact BM25 ranking up to rankWindow matches, else over
// the newest rankWindow matches with honest recall.
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, type SqlPart, scopeWhere } from "./scope-sql.js";
import { type Candidate, describeHit, grantedColumns } from "./search-hits.js";
import { FTS_COLUMNS, searchLayout, searchTable } from "./search-tables.js";
import { matchAllExpr } from "./search-text.js";

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

/** Phase 1: a scope's candidate (id and score). */
interface Scored {
  id: number;
  score: number;
  scope: StreamScope;
}

/** True when the scope sees every connection of its connector (then the FTS table alone is exact). */
function seesAllConnections(db: SqliteDb, scope: StreamScope): boolean {
  const ids = db
    .stmt("SELECT connection_id FROM connections WHERE connector_key = ?")
    .pluck()
    .all(scope.connectorKey) as string[];
  return ids.every((id) => scope.connectionIds.includes(id));
}

/** A scope's candidates that can reach the first `k` hits, and what its window holds. */
function scopeCandidates(db: SqliteDb, scope: StreamScope, query: SearchQuery & { k: number }) {
  const { k } = query;
  const columns = grantedColumns(scope).map((c) => c.column);
  const info = searchTable(db, scope.connectorKey, scope.stream.name);
  if (columns.length === 0 || !info) return { rows: [] as Scored[], total: 0, complete: true, estimate: 0 };
  const table = info.name;
  // When every row was indexed under the current search fields, columns past them are empty: with
  // every search field granted the column filter is a no-op and is left out.
  const everyColumn =
    !info.mixed &&
    info.layout === searchLayout(scope.stream.query?.search) &&
    columns.length === Math.min(scope.stream.query?.search?.length ?? 0, FTS_COLUMNS);
  const match = matchAllExpr(query.terms, everyColumn ? null : columns);
  // The table holds only this stream's live rows (deletes remove them), so without a time range,
  // conditions or hidden connections it answers alone; FTS5 walks its doclist newest first and
  // stops at the window. Otherwise the join filters before the window is counted.
  const plain =
    !scope.since && !scope.until && query.conditions.length === 0 && seesAllConnections(db, scope);
  const where: SqlPart = plain ? { sql: "1", params: [] } : scopeWhere(scope, query.conditions);
  const from = plain ? table : `${table} JOIN records r ON r.id = ${table}.rowid`;
  // The window (newest rankWindow matches) is scored once; only its best k by score (with every
  // tie of the k-th) leave SQL, with the window's size and oldest row.
  const rows = db
    .stmt(
      `WITH w AS MATERIALIZED (
         SELECT ${table}.rowid AS id, -bm25(${table}) AS score FROM ${from}
         WHERE ${table} MATCH ? AND ${where.sql} ORDER BY ${table}.rowid DESC LIMIT ?),
       cut AS (SELECT score FROM w ORDER BY score DESC LIMIT 1 OFFSET ?)
       SELECT id, score, (SELECT count(*) FROM w) AS total, (SELECT min(id) FROM w) AS oldest FROM w
       WHERE (SELECT score FROM cut) IS NULL OR score >= (SELECT score FROM cut)`,
    )
    .all(match, ...where.params, query.rankWindow, k - 1) as (Scored & { total: number; oldest: number })[];
  const total = rows.length ? rows[0].total : 0;
  const scored: Scored[] = rows.map((r) => ({ id: r.id, score: r.score, scope }));
  if (total < query.rankWindow) return { rows: scored, total, complete: true, estimate: total };
  const oldest = rows[0].oldest;
  const older = db
    .stmt(`SELECT 1 FROM ${from} WHERE ${table} MATCH ? AND ${table}.rowid < ? AND ${where.sql} LIMIT 1`)
    .get(match, oldest, ...where.params);
  if (!older) return { rows: scored, total, complete: true, estimate: total };
  // Estimate from the density of matches among the newest rows (cheap; never claimed exact).
  const maxId = (db.stmt("SELECT max(id) AS m FROM records").get() as { m: number }).m;
  const estimate = Math.round((query.rankWindow * maxId) / Math.max(1, maxId - oldest + 1));
  return { rows: scored, total, complete: false, estimate: Math.max(estimate, query.rankWindow + 1) };
}

/**
 * Phase 2: the candidates that can reach the page — the best `k` by score plus every candidate
 * tied with the k-th — with the row fields the full order needs. Rows a scope does not see are
 * dropped (a backstop: the index holds only live rows of the stream, and time ranges and
 * conditions were applied in phase 1).
 */
function pageCandidates(db: SqliteDb, scored: Scored[], k: number): Candidate[] {
  let chosen = scored;
  if (scored.length > k) {
    const scores = Float64Array.from(scored, (c) => c.score).sort();
    const threshold = scores[scores.length - k];
    chosen = scored.filter((c) => c.score >= threshold);
  }
  const byId = new Map(chosen.map((c) => [c.id, c]));
  const rows = db
    .stmt(
      `SELECT id, connection_id, connector_key, stream, record_id, time, emitted_at, deleted
       FROM records WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify([...byId.keys()])) as (Omit<Candidate, "scope" | "score"> & { deleted: number })[];
  const out: Candidate[] = [];
  for (const row of rows) {
    const c = byId.get(row.id) as Scored;
    const { scope } = c;
    if (row.deleted || row.stream !== scope.stream.name || row.connector_key !== scope.connectorKey) continue;
    if (!scope.connectionIds.includes(row.connection_id)) continue;
    out.push({ ...row, score: c.score, scope });
  }
  return out;
}

export function search(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  const live = normalizeScopes(scopes);
  if (query.terms.length === 0 || live.length === 0) {
    return { hits: [], hasMore: false, recall: { complete: true, rankingScope: "all_matches" } };
  }
  let complete = true;
  let estimate = 0;
  let total = 0;
  const scored: Scored[] = [];
  const end = query.offset + query.limit;
  for (const scope of live) {
    // Every hit of the page, plus one to know whether more follow, is among each scope's best k.
    const found = scopeCandidates(db, scope, { ...query, k: end + 1 });
    complete &&= found.complete;
    estimate += found.estimate;
    total += found.total;
    for (const row of found.rows) scored.push(row);
  }
  const ranked = pageCandidates(db, scored, end).sort(compareHits);
  const hits: StoredSearchHit[] = ranked.slice(query.offset, end).map((c) => describeHit(db, c, query.terms));
  return {
    hits,
    hasMore: total > end,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate },
  };
}
