// search on Postgres: the primitives core/search-ranking.ts ranks from (search-candidates.ts: every
// positive clause's visible matches in one statement, then the chosen candidates' keys and granted
// texts), the ranking itself in shared code, and the page's details (search-hits.ts) — the same
// answers as SQLite, bit for bit, for the same data and query.
import type pg from "pg";
import { type StreamScope, scopeGrantsTime } from "../../core/grant.js";
import { getPath } from "../../core/projection.js";
import { searchableText } from "../../core/search-analysis.js";
import { positiveClauses } from "../../core/search-query.js";
import {
  type CandidateDoc,
  type ClauseHits,
  displayScore,
  enumerateLimit,
  fieldWeight,
  offerFor,
  pageOf,
  planCandidates,
  scoreCandidates,
  windowOf,
} from "../../core/search-ranking.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import {
  type CandidateDocRow,
  type ClauseHitRow,
  type ClausePlan,
  candidateDocsSql,
  clauseHitsSql,
  clausePlan,
  matchBoundsSql,
} from "./search-candidates.js";
import { type Candidate, pageDetails } from "./search-hits.js";
import { grantedSearchFields } from "./search-sql.js";
import { observeHits } from "./seen-sql.js";

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

/** The chosen candidates with their granted texts, in `rids` order (rows no scope sees are left out). */
async function candidateDocs(
  pool: pg.Pool,
  scopes: StreamScope[],
  rids: string[],
): Promise<(CandidateDoc & { candidate: Candidate })[]> {
  if (rids.length === 0) return [];
  const textPaths = [...new Set(scopes.flatMap((s) => s.stream.text_fields ?? []))];
  const { sql, values } = candidateDocsSql(rids, textPaths);
  const { rows } = await pool.query<CandidateDocRow>(sql, values);
  const byRid = new Map(rows.map((r) => [r.rid, r]));
  const out: (CandidateDoc & { candidate: Candidate })[] = [];
  for (const rid of rids) {
    const row = byRid.get(rid);
    const scope =
      row && scopes.find((s) => s.stream.name === row.stream && s.connectionIds.includes(row.connection_id));
    if (!row || !scope) continue;
    const textFields = scope.stream.text_fields ?? [];
    const fields = grantedSearchFields(scope).map((field) => ({
      text:
        textFields.includes(field) && row.texts?.[field] !== undefined
          ? row.texts[field]
          : searchableText(getPath(row.payload, field)),
      weight: fieldWeight(scope.stream, field),
    }));
    out.push({
      id: Number(rid),
      fields,
      candidate: {
        rid,
        connection_id: row.connection_id,
        stream: row.stream,
        record_id: row.record_id,
        // Ties are broken by time only where the grant shows it.
        time: scopeGrantsTime(scope) ? row.time : null,
        score: 0,
        scope,
      },
    });
  }
  return out;
}

/**
 * How each (scope, clause) pair's matches are read, from search_df's bounds where it has them: a
 * clause known to pass the limit is not walked to its 2,001st match (at 1M records a common
 * word's lay ~2,700 lexeme rows back, its 100th ~140), one known to stay under it skips the density
 * probe, one known to match nothing is not read.
 */
async function clausePlans(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: SearchQuery,
  limit1: number,
): Promise<Map<string, ClausePlan>> {
  const bounds = matchBoundsSql(scopes, query);
  if (bounds === null) return new Map();
  const { rows } = await pool.query<{ key: string; floor: string; ceiling: string }>(
    bounds.sql,
    bounds.values,
  );
  return new Map(
    rows.map((r) => [r.key, clausePlan({ floor: Number(r.floor), ceiling: Number(r.ceiling) }, limit1)]),
  );
}

export async function search(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: SearchQuery,
): Promise<SearchResult> {
  const live = scopes.filter((s) => s.connectionIds.length > 0 && grantedSearchFields(s).length > 0);
  const positive = positiveClauses(query.clauses);
  if (positive.length === 0 || live.length === 0) {
    return {
      hits: [],
      hasMore: false,
      recall: { complete: true, rankingScope: "all_matches" },
      unmatched: positive.map((c) => c.text),
    };
  }
  const limit = enumerateLimit(query.rankWindow);
  const statement = clauseHitsSql(live, query, {
    limit1: limit + 1,
    offer: offerFor(query.offset, query.rankWindow),
    plans: await clausePlans(pool, live, query, limit + 1),
  });
  const rows = statement ? (await pool.query<ClauseHitRow>(statement.sql, statement.values)).rows : [];
  const counted = new Set<string>();
  const hits: ClauseHits[] = positive.map(() => ({ ids: [], count: 0, capped: false }));
  for (const row of rows) {
    const hit = hits[row.clause];
    hit.ids.push(Number(row.rid));
    const key = `${row.scope}/${row.clause}`;
    if (counted.has(key)) continue;
    counted.add(key);
    // Counted up to limit + 1 whatever the window (a deeper page must see the same counts).
    const n = Math.min(Number(row.n), limit + 1);
    hit.count += n;
    if (n > limit) hit.capped = true;
  }
  const unmatched = positive.filter((_, i) => hits[i].count === 0).map((c) => c.text);
  const plan = planCandidates(hits, query.rankWindow, windowOf(query.offset, query.rankWindow));
  const docs = await candidateDocs(pool, live, plan.ids.map(String));
  const scores = scoreCandidates(query.clauses, docs, plan);
  const ranked = docs.map((d, i) => ({ ...d.candidate, score: scores[i] })).sort(compareHits);
  const { start, end, hasMore, next } = pageOf(plan, ranked.length, query);
  const page = ranked.slice(start, end);
  const details = await pageDetails(pool, page, query.clauses);
  const pageHits: StoredSearchHit[] = page.map((c, i) => ({
    connectionId: c.connection_id,
    connectorKey: c.scope.connectorKey,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
    score: displayScore(c.score),
    ...details[i],
  }));
  const result: SearchResult = {
    hits: pageHits,
    hasMore,
    ...(hasMore ? { nextOffset: next } : {}),
    recall: plan.complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: plan.seen },
    unmatched,
  };
  // What a projected grant observes of emitted_at (core/stamps.ts).
  return observeHits(pool, scopes, result);
}
