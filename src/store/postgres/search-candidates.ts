// One scope's search candidates on Postgres, with the plan chosen by selectivity: a capped probe
// over the lexeme rows' GIN index counts matches up to rankWindow+1; a selective query is then
// ranked exactly over its whole match set (GIN), a broad one over its rankWindow newest matches
// found by walking (stream, rid) backwards — never the reverse, which costs seconds.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery } from "../store.js";
import {
  anyTermQuery,
  grantedSearchFields,
  indexedSearchFields,
  lexemeQuery,
  lexemeTerms,
  termQuery,
} from "./search-sql.js";
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
  const indexed = indexedSearchFields(scope);
  const everyField = fields.length === indexed.length;
  // The lexeme row is exact for words and prefixes over all search fields; phrases (adjacency) and
  // a grant hiding some search fields need the per-field rows for confirmation.
  const confirm = everyField ? query.terms.filter((t) => t.kind === "phrase") : query.terms;
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
  // Broad: the newest cap matches, found in id order (each test is one small inline row).
  const capParam = broad ? params.add(cap) : "";
  const cand = broad
    ? `(${m.single} ORDER BY l.rid DESC LIMIT ${capParam}) UNION ALL (${m.multi()} ORDER BY l.rid DESC LIMIT ${capParam})`
    : `${m.single} UNION ALL ${m.multi()}`;
  const any = `${params.add(anyTermQuery(query.terms))}::tsquery`;
  const { rows } = await pool.query<Omit<Candidate, "scope"> & { total: string; oldest: string }>(
    `WITH cand AS MATERIALIZED (${cand}),
     win AS MATERIALIZED (SELECT rid FROM cand ORDER BY rid DESC LIMIT ${params.add(query.rankWindow)}),
     stats AS (SELECT (SELECT count(*) FROM cand) AS total, (SELECT min(rid) FROM win) AS oldest),
     scored AS (
       SELECT w.rid, (SELECT coalesce(sum(ts_rank_cd(d.tsv, ${any})), 0) FROM search_docs d
                      WHERE d.rid = w.rid AND d.field = ANY(${params.add(grantedSearchFields(scope))}::text[]) AND d.tsv @@ ${any})::float8 AS score
       FROM win w
     )
     SELECT r.rid, r.connection_id, r.stream, r.record_id, r.time, r.emitted_at, s.score, st.total, st.oldest
     FROM scored s JOIN records r ON r.rid = s.rid CROSS JOIN stats st
     ORDER BY s.score DESC, r.time DESC NULLS LAST, r.connection_id, r.stream, r.record_id
     LIMIT ${params.add(query.k)}`,
    params.values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  const candidates = rows.map((r) => ({ ...r, score: Number(r.score), scope }));
  if (!broad && total <= query.rankWindow) {
    return { rows: candidates, windowSize: total, complete: true, estimate: total };
  }
  return {
    rows: candidates,
    windowSize: Math.min(total, query.rankWindow),
    complete: false,
    estimate: await estimateMatches(pool, scope, { window: query.rankWindow, oldest: rows[0]?.oldest }),
  };
}

/** Matches beyond the window, estimated from their density among the stream's newest rows. */
async function estimateMatches(
  pool: pg.Pool,
  scope: StreamScope,
  at: { window: number; oldest: string | undefined },
): Promise<number> {
  const { rows } = await pool.query<{ lo: string | null; hi: string | null }>(
    "SELECT min(rid) AS lo, max(rid) AS hi FROM search_lex WHERE stream = $1",
    [scope.stream.name],
  );
  const lo = Number(rows[0].lo ?? 0);
  const hi = Number(rows[0].hi ?? 0);
  const oldest = Number(at.oldest ?? lo);
  const estimate = Math.round((at.window * (hi - lo + 1)) / Math.max(1, hi - oldest + 1));
  return Math.max(estimate, at.window + 1);
}
