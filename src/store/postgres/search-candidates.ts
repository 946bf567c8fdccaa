// One scope's search candidates on Postgres, with the plan chosen by selectivity: a capped probe
// over the lexeme rows' GIN index counts matches up to rankWindow+1; a selective query is then
// ranked exactly over its whole match set (GIN), a broad one over its rankWindow newest matches
// found by walking (stream, rid) backwards — never the reverse, which costs seconds.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { ESTIMATE_EXTRA, matchedEstimate } from "../../core/search-ranking.js";
import type { SearchQuery } from "../store.js";
import { coverageQuery, grantedSearchFields, lexemeQuery, lexemeTerms, termQuery } from "./search-sql.js";
import { conditionsClause, Params, scopeClause } from "./sql-scope.js";

/** A candidate that can reach the page, with what the full order needs. */
export interface Candidate {
  rid: string;
  connection_id: string;
  stream: string;
  record_id: string;
  time: string | null;
  emitted_at: string;
  score: number;
  scope: StreamScope;
}

export interface ScopeCandidates {
  rows: Candidate[];
  /** Matches in the ranked window (at most rankWindow). */
  windowSize: number;
  complete: boolean;
  estimate: number;
}

/** The SQL pieces that select one scope's matching rids from search_lex (alias l). */
function matchSql(params: Params, scope: StreamScope, query: SearchQuery) {
  const fields = grantedSearchFields(scope);
  // The lexeme row holds the words of whatever field list the stream was indexed under, which a
  // manifest registered after this scope was resolved may have changed: every term is confirmed
  // in the scope's granted fields by the per-field rows (field names, not positions).
  const confirm = query.terms;
  const fieldsParam = confirm.length > 0 ? params.add(fields) : "";
  const checks = confirm.map(
    (
      t,
    ) => `AND EXISTS (SELECT 1 FROM search_docs d WHERE d.rid = l.rid AND d.field = ANY(${fieldsParam}::text[])
             AND d.tsv @@ ${params.add(termQuery(t))}::tsquery)`,
  );
  const bounded = scope.since || scope.until || query.conditions.length > 0;
  const join = bounded
    ? `JOIN records r ON r.rid = l.rid AND ${scopeClause(params, scope)} AND ${conditionsClause(params, scope, query.conditions)}`
    : "";
  const where = `l.stream = ${params.add(scope.stream.name)} AND l.connection_id = ANY(${params.add(scope.connectionIds)}::text[])`;
  const single = `SELECT l.rid FROM search_lex l ${join}
    WHERE l.parts = 1 AND ${where} AND l.tsv @@ ${params.add(lexemeQuery(query.terms))}::tsquery ${checks.join(" ")}`;
  // Records whose word set spans several parts: every word in some part (few, huge records).
  const multi = (): string => {
    const every = lexemeTerms(query.terms)
      .map((w) => `bool_or(l.tsv @@ ${params.add(w)}::tsquery)`)
      .join(" AND ");
    return `SELECT l.rid FROM search_lex l ${join}
      WHERE l.parts > 1 AND ${where} ${checks.join(" ")} GROUP BY l.rid HAVING ${every}`;
  };
  return { single, multi };
}

export async function scopeCandidates(
  pool: pg.Pool,
  scope: StreamScope,
  query: SearchQuery & { k: number },
): Promise<ScopeCandidates> {
  const none = { rows: [], windowSize: 0, complete: true, estimate: 0 };
  if (grantedSearchFields(scope).length === 0) return none;
  const cap = query.rankWindow + 1;
  const probeParams = new Params();
  const probe = matchSql(probeParams, scope, query);
  const counted = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM (${probe.single} LIMIT ${probeParams.add(cap)}) x`,
    probeParams.values,
  );
  const broad = Number(counted.rows[0].n) >= cap;

  const params = new Params();
  const m = matchSql(params, scope, query);
  // Broad: the newest matches in id order (each test is one small inline row): the window, plus
  // up to ESTIMATE_EXTRA older ones counted for matched_estimate.
  const capParam = broad ? params.add(query.rankWindow + ESTIMATE_EXTRA) : "";
  const cand = broad
    ? `(${m.single} ORDER BY l.rid DESC LIMIT ${capParam}) UNION ALL (${m.multi()} ORDER BY l.rid DESC LIMIT ${capParam})`
    : `${m.single} UNION ALL ${m.multi()}`;
  const coverage = `${params.add(coverageQuery(query.terms))}::tsquery`;
  // Score: granted search fields in which some term occurs (core/search-ranking.ts).
  const { rows } = await pool.query<Omit<Candidate, "scope"> & { total: string }>(
    `WITH cand AS MATERIALIZED (${cand}),
     win AS MATERIALIZED (SELECT rid FROM cand ORDER BY rid DESC LIMIT ${params.add(query.rankWindow)}),
     stats AS (SELECT (SELECT count(*) FROM cand) AS total),
     scored AS (
       SELECT w.rid, (SELECT count(DISTINCT d.field) FROM search_docs d
                      WHERE d.rid = w.rid AND d.field = ANY(${params.add(grantedSearchFields(scope))}::text[])
                        AND d.tsv @@ ${coverage})::float8 AS score
       FROM win w
     )
     SELECT r.rid, r.connection_id, r.stream, r.record_id, r.time, r.emitted_at, s.score, st.total
     FROM scored s JOIN records r ON r.rid = s.rid CROSS JOIN stats st
     ORDER BY s.score DESC, r.time DESC NULLS LAST, r.connection_id, r.stream, r.record_id
     LIMIT ${params.add(query.k)}`,
    params.values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  const candidates = rows.map(({ total: _t, ...r }) => ({ ...r, score: Number(r.score), scope }));
  if (total <= query.rankWindow) {
    return { rows: candidates, windowSize: total, complete: true, estimate: total };
  }
  return {
    rows: candidates,
    windowSize: query.rankWindow,
    complete: false,
    estimate: matchedEstimate(query.rankWindow, total - query.rankWindow),
  };
}
