// search on Postgres in one round trip: one statement ranks every scope's candidates (exactly over
// every visible match up to rankWindow, else over the newest rankWindow, with honest recall, as
// on SQLite; scores per core/search-ranking.ts), cuts the page and reads its details (title,
// snippet, matched fields, and for projected grants the emitted_at their stamps show). Scopes are
// merged here in the contract's order; should that page ever differ from the statement's, the
// details are read again for it (search-hits.ts pageDetails).
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { matchedEstimate } from "../../core/search-ranking.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import { type Candidate, type SearchRow, searchSql } from "./search-candidates.js";
import { describeFromRows, pageDetails, titleTextFields } from "./search-hits.js";
import { anyTermQuery, grantedSearchFields } from "./search-sql.js";
import { anyProjected, observedStamp, observeHits, type StampFields } from "./seen-sql.js";

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
  const stamps = anyProjected(scopes);
  const { sql, values } = searchSql(
    live,
    { ...query, k: end + 1 },
    {
      offset: query.offset,
      limit: query.limit,
      anyTerm: anyTermQuery(query.terms),
      fields: [...new Set(live.flatMap(grantedSearchFields))],
      titles: titleTextFields(live),
      stamps,
    },
  );
  const { rows } = await pool.query<SearchRow>(sql, values);
  const totals = new Map<number, number>();
  const candidates: Candidate[] = rows.map((row) => {
    totals.set(row.scope, Number(row.total));
    return {
      rid: row.rid,
      connection_id: row.connection_id,
      record_id: row.record_id,
      time: row.time,
      stream: live[row.scope].stream.name,
      score: Number(row.score),
      scope: live[row.scope],
    };
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
  const described = describeFromRows(pool, page, query.terms, rows);
  const details = await (described ?? pageDetails(pool, page, query.terms));
  let hits: StoredSearchHit[] = page.map((c, i) => ({
    connectionId: c.connection_id,
    connectorKey: c.scope.connectorKey,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
    score: c.score,
    ...details[i],
  }));
  const recall: SearchResult["recall"] = complete
    ? { complete: true, rankingScope: "all_matches" }
    : { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate };
  // The details were read apart from the candidates: so are the stamps.
  if (described === null) return observeHits(pool, scopes, { hits, hasMore: windowed > end, recall });
  if (stamps) {
    // What a projected grant observes of emitted_at (core/stamps.ts): the stamps came with the page.
    const stamped = new Map<string, SearchRow>();
    for (const row of rows) if (row.in_page && row.stamps != null) stamped.set(row.rid, row);
    hits = hits.map((hit, i) => {
      const row = stamped.get(page[i].rid);
      const scope = row && scopeOf(scopes, hit);
      return row && scope && scope.fields !== "all"
        ? { ...hit, emittedAt: observedStamp(row as SearchRow & StampFields, scope).emittedAt }
        : hit;
    });
  }
  return { hits, hasMore: windowed > end, recall };
}

/** The scope a hit's emitted_at is observed through (as the stamps read of seen-sql.ts chose it). */
function scopeOf(scopes: StreamScope[], hit: { connectionId: string; stream: string }) {
  return scopes.find((s) => s.stream.name === hit.stream && s.connectionIds.includes(hit.connectionId));
}
