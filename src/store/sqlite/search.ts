// Full-text search of the SQLite store: FTS5 over normalised tokens, restricted per scope to the
// granted search fields by a column filter; each scope's candidates (search-candidates.ts: its
// visible matches, all or the newest rankWindow, scored by granted-field coverage as
// core/search-ranking.ts defines) are merged here in the contract's order and described.
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes } from "./scope-sql.js";
import { scopeCandidates } from "./search-candidates.js";
import { type Candidate, describeHit } from "./search-hits.js";
import { DEFAULT_SEARCH_TUNING, type SearchTuning } from "./search-tuning.js";

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

function searchInSnapshot(
  db: SqliteDb,
  scopes: StreamScope[],
  query: SearchQuery,
  tuning: SearchTuning,
): SearchResult {
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
    const found = scopeCandidates(db, scope, { ...query, k: end + 1 }, tuning);
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
export function search(
  db: SqliteDb,
  scopes: StreamScope[],
  query: SearchQuery,
  tuning: SearchTuning = DEFAULT_SEARCH_TUNING,
): SearchResult {
  if (db.raw.inTransaction) return searchInSnapshot(db, scopes, query, tuning);
  return db.raw.transaction(() => searchInSnapshot(db, scopes, query, tuning))();
}
