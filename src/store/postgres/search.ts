// search on Postgres in two round trips: one statement ranks every scope's candidates (exactly over
// every visible match up to rankWindow, else over the newest rankWindow, with honest recall, as
// on SQLite; scores per core/search-ranking.ts), one reads the page's details (title, snippet,
// matched fields). Scopes are merged in the contract's order.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { matchedEstimate } from "../../core/search-ranking.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import { type Candidate, type CandidateRow, candidatesSql } from "./search-candidates.js";
import { pageDetails } from "./search-hits.js";
import { grantedSearchFields } from "./search-sql.js";

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
  const live = scopes.filter((s) => s.connectionIds.length > 0 && grantedSearchFields(s).length > 0);
  if (query.terms.length === 0 || live.length === 0) {
    return { hits: [], hasMore: false, recall: { complete: true, rankingScope: "all_matches" } };
  }
  const end = query.offset + query.limit;
  // Every hit of the page, plus one to know whether more follow, is among each scope's best k.
  const { sql, values } = candidatesSql(live, { ...query, k: end + 1 });
  const { rows } = await pool.query<CandidateRow>(sql, values);
  const totals = new Map<number, number>();
  const candidates: Candidate[] = rows.map(({ scope, total, ...row }) => {
    totals.set(scope, Number(total));
    return { ...row, stream: live[scope].stream.name, score: Number(row.score), scope: live[scope] };
  });
  let complete = true;
  let estimate = 0;
  let windowed = 0;
  for (const total of totals.values()) {
    windowed += Math.min(total, query.rankWindow);
    if (total <= query.rankWindow) estimate += total;
    else {
      complete = false;
      estimate += matchedEstimate(query.rankWindow, total - query.rankWindow);
    }
  }
  const page = candidates.sort(compareHits).slice(query.offset, end);
  const details = await pageDetails(pool, page, query.terms);
  const hits: StoredSearchHit[] = page.map((c, i) => ({
    connectionId: c.connection_id,
    connectorKey: c.scope.connectorKey,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
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
