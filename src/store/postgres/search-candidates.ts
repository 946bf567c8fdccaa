// The candidate part of a Postgres search, for every scope in ONE statement (one round trip):
// per scope, a capped probe over the field-tagged lexeme rows' GIN index counts matches up to
// rankWindow+1 and gates, by a one-time filter, which plan runs — a selective query is ranked
// exactly over its whole match set (GIN), a broad one over its newest matches found by walking
// (stream, rid) backwards. Scores come from the one lexeme row per record (core/search-ranking.ts).
import type { StreamScope } from "../../core/grant.js";
import { ESTIMATE_EXTRA } from "../../core/search-ranking.js";
import type { SearchQuery } from "../store.js";
import {
  grantedSearchFields,
  taggedAllQuery,
  taggedCoverageQuery,
  taggedTermQueries,
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

/** The CTEs of one scope (named by its index) and its final SELECT of the best k. */
function scopeSql(params: Params, scope: StreamScope, query: SearchQuery & { k: number; index: number }) {
  const i = query.index;
  const fields = grantedSearchFields(scope);
  let fieldsParam = "";
  const bounded = scope.since || scope.until || query.conditions.length > 0;
  const join = bounded
    ? `JOIN records r ON r.rid = l.rid AND ${scopeClause(params, scope)} AND ${conditionsClause(params, scope, query.conditions)}`
    : "";
  const where = `l.stream = ${params.add(scope.stream.name)} AND l.connection_id = ANY(${params.add(scope.connectionIds)}::text[])`;
  // The lexeme row is exact for words and prefixes in the granted fields; phrases (adjacency) are
  // confirmed by the per-field rows.
  const checks = query.terms
    .filter((t) => t.kind === "phrase")
    .map((t) => {
      fieldsParam ||= params.add(fields);
      return `AND EXISTS (SELECT 1 FROM search_docs d WHERE d.rid = l.rid AND d.field = ANY(${fieldsParam}::text[])
               AND d.tsv @@ ${params.add(termQuery(t))}::tsquery)`;
    })
    .join(" ");
  const all = `${params.add(taggedAllQuery(query.terms, fields))}::tsquery`;
  const coverage = fields.map((f) => `${params.add(taggedCoverageQuery(query.terms, f))}::tsquery`);
  const singleScore = coverage.map((q) => `(l.tsv @@ ${q})::int`).join(" + ");
  const multiScore = coverage.map((q) => `coalesce(bool_or(l.tsv @@ ${q}), false)::int`).join(" + ");
  // Records whose word set spans several parts (few, huge): every term in some part.
  const words = query.terms.flatMap((t) =>
    t.kind === "phrase" ? t.words.map((w) => ({ kind: "word" as const, text: w })) : [t],
  );
  const every = taggedTermQueries(words, fields)
    .map((q) => `bool_or(l.tsv @@ ${params.add(q)}::tsquery)`)
    .join(" AND ");
  const cap = params.add(query.rankWindow + 1);
  const limit = params.add(query.rankWindow + ESTIMATE_EXTRA);
  const single = `SELECT l.rid, ${singleScore} AS score FROM search_lex l ${join}
    WHERE l.parts = 1 AND ${where} AND l.tsv @@ ${all} ${checks}`;
  const ctes = [
    `probe${i} AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM search_lex l ${join}
       WHERE l.parts = 1 AND ${where} AND l.tsv @@ ${all} ${checks} LIMIT ${cap}) x)`,
    `cand${i} AS MATERIALIZED (
       (${single} AND (SELECT n FROM probe${i}) >= ${cap} ORDER BY l.rid DESC LIMIT ${limit})
       UNION ALL (${single} AND (SELECT n FROM probe${i}) < ${cap})
       UNION ALL (SELECT l.rid, ${multiScore} AS score FROM search_lex l ${join}
         WHERE l.parts > 1 AND ${where} ${checks} GROUP BY l.rid HAVING ${every} ORDER BY l.rid DESC LIMIT ${limit}))`,
    `win${i} AS MATERIALIZED (SELECT rid, score FROM cand${i} ORDER BY rid DESC LIMIT ${params.add(query.rankWindow)})`,
    `top${i} AS (
       SELECT ${i} AS scope, w.rid, w.score, r.connection_id, r.stream, r.record_id, r.time, r.emitted_at,
              (SELECT count(*) FROM cand${i}) AS total
       FROM win${i} w JOIN records r ON r.rid = w.rid
       ORDER BY w.score DESC, r.time DESC NULLS LAST, r.connection_id, r.stream, r.record_id
       LIMIT ${params.add(query.k)})`,
  ];
  return { ctes, select: `SELECT * FROM top${i}` };
}

export interface CandidateRow extends Omit<Candidate, "scope"> {
  scope: number;
  total: string;
}

/** One statement answering every scope's best k candidates, each row with its scope's match total. */
export function candidatesSql(scopes: StreamScope[], query: SearchQuery & { k: number }) {
  const params = new Params();
  const parts = scopes.map((scope, index) => scopeSql(params, scope, { ...query, index }));
  const sql = `WITH ${parts.flatMap((p) => p.ctes).join(",\n")}
    ${parts.map((p) => p.select).join(" UNION ALL ")}`;
  return { sql, values: params.values };
}
