// Full-text search of the SQLite store: FTS5 over normalised tokens, restricted per scope to the
// granted search fields by a column filter; exact BM25 ranking up to rankWindow matches, else over
// the newest rankWindow matches with honest recall.
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, type SqlParam, scopeWhere } from "./scope-sql.js";
import { type Candidate, describeHit, grantedColumns } from "./search-hits.js";
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

function scopeCandidates(db: SqliteDb, scope: StreamScope, query: SearchQuery) {
  const columns = grantedColumns(scope).map((c) => c.column);
  if (columns.length === 0) return { rows: [] as Candidate[], complete: true, estimate: 0 };
  const where = scopeWhere(scope, query.conditions);
  // Newest first by insertion: FTS5 walks its doclist backwards and stops at the window.
  const sql = `SELECT r.id, r.connection_id, r.connector_key, r.stream, r.record_id, r.time, r.emitted_at,
      -bm25(search_index) AS score
    FROM search_index JOIN records r ON r.id = search_index.rowid
    WHERE search_index MATCH ? AND ${where.sql}
    ORDER BY search_index.rowid DESC LIMIT ?`;
  const params: SqlParam[] = [matchAllExpr(query.terms, columns), ...where.params, query.rankWindow + 1];
  const rows = (db.stmt(sql).all(...params) as Omit<Candidate, "scope">[]).map((r) => ({ ...r, scope }));
  if (rows.length <= query.rankWindow) return { rows, complete: true, estimate: rows.length };
  rows.length = query.rankWindow;
  // Estimate from the density of matches among the newest rows (cheap; never claimed exact).
  const maxId = (db.stmt("SELECT max(id) AS m FROM records").get() as { m: number }).m;
  const oldest = rows[rows.length - 1].id;
  const estimate = Math.round((query.rankWindow * maxId) / Math.max(1, maxId - oldest + 1));
  return { rows, complete: false, estimate: Math.max(estimate, query.rankWindow + 1) };
}

export function search(db: SqliteDb, scopes: StreamScope[], query: SearchQuery): SearchResult {
  const live = normalizeScopes(scopes);
  if (query.terms.length === 0 || live.length === 0) {
    return { hits: [], hasMore: false, recall: { complete: true, rankingScope: "all_matches" } };
  }
  let complete = true;
  let estimate = 0;
  const all: Candidate[] = [];
  for (const scope of live) {
    const found = scopeCandidates(db, scope, query);
    complete &&= found.complete;
    estimate += found.estimate;
    all.push(...found.rows);
  }
  all.sort(compareHits);
  const page = all.slice(query.offset, query.offset + query.limit);
  const hits: StoredSearchHit[] = page.map((c) => describeHit(db, c, query.terms));
  return {
    hits,
    hasMore: all.length > query.offset + query.limit,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate },
  };
}
