// search on Postgres: per scope, candidates ranked by ts_rank_cd (exactly over every match when a
// scope has at most rankWindow, else over its rankWindow newest, with honest recall as on SQLite);
// scopes merged in the contract's order, and details (title, snippet, matched fields) read in
// batches for the returned page only.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import { type Candidate, scopeCandidates } from "./search-candidates.js";
import { pageDetails } from "./search-hits.js";

/** Byte order of UTF-8 strings (code-point order), as COLLATE "C" sorts in SQL. */
function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The contract's order: score desc, time desc (nulls last), connection, stream, record id. */
function compareHits(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.time !== b.time) {
    if (a.time === null) return 1;
    if (b.time === null) return -1;
    return compareBytes(b.time, a.time);
  }
  return (
    compareBytes(a.connection_id, b.connection_id) ||
    compareBytes(a.stream, b.stream) ||
    compareBytes(a.record_id, b.record_id)
  );
}

export async function search(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: SearchQuery,
): Promise<SearchResult> {
  const live = scopes.filter((s) => s.connectionIds.length > 0);
  if (query.terms.length === 0 || live.length === 0) {
    return { hits: [], hasMore: false, recall: { complete: true, rankingScope: "all_matches" } };
  }
  const end = query.offset + query.limit;
  let complete = true;
  let estimate = 0;
  let windowed = 0;
  const candidates: Candidate[] = [];
  for (const scope of live) {
    // Every hit of the page, plus one to know whether more follow, is among each scope's best k.
    const found = await scopeCandidates(pool, scope, { ...query, k: end + 1 });
    complete &&= found.complete;
    estimate += found.estimate;
    windowed += found.windowSize;
    candidates.push(...found.rows);
  }
  const page = candidates.sort(compareHits).slice(query.offset, end);
  const details = await pageDetails(pool, page, query.terms);
  const hits: StoredSearchHit[] = page.map((c, i) => ({
    connectionId: c.connection_id,
    connectorKey: c.scope.connectorKey,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
    emittedAt: c.emitted_at,
    score: c.score,
    ...details[i],
  }));
  return {
    hits,
    hasMore: windowed > end,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate },
  };
}
