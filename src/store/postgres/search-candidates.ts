// The candidate part of a Postgres search, for every scope in ONE statement (one round trip).
// Per scope, the newest rankWindow + ESTIMATE_EXTRA visible matches are taken from the lexeme rows
// (one per record, field-tagged words, core/search-ranking.ts); the newest rankWindow of them form
// the window, the rest only count towards recall and matched_estimate. How they are found is chosen
// by selectivity, measured rather than estimated (the planner's tsvector estimates were off 25×,
// and a GIN count of a broad term reads its whole posting list): a probe tests the scope's newest
// PROBE_ROWS rows; a dense query walks (stream, rid) backwards and stops after enough matches, a
// sparse one takes every match from the GIN index and sorts them. Each lexeme row carries the
// record's id and time (migration 7), so the window is scored and put in the contract's order
// without touching records (a join is left only for payload conditions).
import { type StreamScope, scopeGrantsTime } from "../../core/grant.js";
import { ESTIMATE_EXTRA } from "../../core/search-ranking.js";
import { normalizeTime } from "../../core/time.js";
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
  score: number;
  scope: StreamScope;
}

/** Rows the density probe tests, newest first (the same rows for the same data: no randomness). */
const PROBE_ROWS = 512;
/**
 * Matches among them from which walking beats the GIN index (~20%). The walk reads about 1/density
 * rows per match kept and stops after rankWindow + ESTIMATE_EXTRA of them; the GIN plan fetches
 * and sorts every match. Measured at 1M records: a 75%-dense mail scope walks its window and
 * older count in ~35 ms; a 14%-dense scope of small transaction rows (spread over pages shared with
 * mail) costs ~270 ms walked and ~120 ms through GIN, so the line sits above it.
 */
const DENSE_MATCHES = 100;

/** The CTEs of one scope (named by its index) and its final SELECT of the best k. */
function scopeSql(params: Params, scope: StreamScope, query: SearchQuery & { k: number; index: number }) {
  const i = query.index;
  const fields = grantedSearchFields(scope);
  let fieldsParam = "";
  // Payload conditions need the record; the grant's time range is checked on the lexeme row's time
  // (a bounded scope hides records without a time, as scopeClause does).
  const join =
    query.conditions.length > 0
      ? `JOIN records r ON r.rid = l.rid AND ${scopeClause(params, scope)} AND ${conditionsClause(params, scope, query.conditions)}`
      : "";
  const bounds = [
    scope.since ? `AND l.time >= ${params.add(normalizeTime(scope.since))}` : "",
    scope.until ? `AND l.time < ${params.add(normalizeTime(scope.until))}` : "",
  ].join(" ");
  const where = `l.stream = ${params.add(scope.stream.name)} AND l.connection_id = ANY(${params.add(scope.connectionIds)}::text[]) ${bounds}`;
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
  // Ties are broken by time only where the grant shows it: an ungranted time_field must not order hits.
  const time = scopeGrantsTime(scope) ? "l.time" : "NULL::text";
  const limit = params.add(query.rankWindow + ESTIMATE_EXTRA);
  const window = params.add(query.rankWindow);
  const extra = params.add(ESTIMATE_EXTRA);
  const columns = `l.rid, l.connection_id, l.record_id, ${time} AS time`;
  const filter = `l.parts = 1 AND ${where}`;
  // The walk must be search_lex_newest backwards, and the planner must believe it stops early:
  // - it orders by (stream, rid) under a range test on stream that is an equality in effect, so the
  //   primary key (rid, part), which would walk every stream's rows, cannot give that order;
  // - its match test is `(CASE … THEN rid END) IS NOT NULL`: exact, not indexable (no GIN plan),
  //   and estimated at 99.5% (an opaque test is taken as 50%, and the planner then reads the whole
  //   stream through a bitmap to sort it whenever the LIMIT passes its estimate of the matches).
  // The sparse plan orders by rid + 0 so no index walk can stand in for the GIN lookup.
  const walkStream = `l.stream >= ${params.add(scope.stream.name)} AND l.stream <= ${params.add(scope.stream.name)}`;
  const walkFilter = `l.parts = 1 AND ${walkStream} AND l.connection_id = ANY(${params.add(scope.connectionIds)}::text[]) ${bounds}`;
  const walkMatch = `(CASE WHEN l.tsv @@ ${all} THEN l.rid END) IS NOT NULL ${checks}`;
  const walkOrder = "ORDER BY l.stream DESC, l.rid DESC";
  // Per scope: `dense` probes the newest PROBE_ROWS rows; then exactly one of `gin` (every match up
  // to window + extra, sorted) and `walk` (the newest `window` matches, then `older` counts on from
  // where it stopped, scoring nothing) runs; `multi` holds records of several lexeme parts.
  const ctes = [
    // Phrase checks count in the probe too: dense words with a rare adjacency are a sparse query.
    `dense${i} AS MATERIALIZED (SELECT count(*) >= ${DENSE_MATCHES} AS dense FROM (
       SELECT l.rid, l.tsv FROM search_lex l ${join} WHERE ${walkFilter} ${walkOrder} LIMIT ${PROBE_ROWS}) l
       WHERE l.tsv @@ ${all} ${checks})`,
    `gin${i} AS MATERIALIZED (SELECT ${columns}, ${singleScore} AS score FROM search_lex l ${join}
       WHERE ${filter} AND l.tsv @@ ${all} ${checks} AND NOT (SELECT dense FROM dense${i})
       ORDER BY l.rid + 0 DESC LIMIT ${limit})`,
    `walk${i} AS MATERIALIZED (SELECT ${columns}, ${singleScore} AS score FROM search_lex l ${join}
       WHERE ${walkFilter} AND ${walkMatch} AND (SELECT dense FROM dense${i}) ${walkOrder} LIMIT ${window})`,
    `older${i} AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM search_lex l ${join}
       WHERE ${walkFilter} AND l.rid < (SELECT min(rid) FROM walk${i}) AND ${walkMatch}
         AND (SELECT count(*) FROM walk${i}) >= ${window}
       ${walkOrder} LIMIT ${extra}) x)`,
    `multi${i} AS MATERIALIZED (SELECT ${columns}, ${multiScore} AS score FROM search_lex l ${join}
       WHERE l.parts > 1 AND ${where} ${checks} GROUP BY l.rid, l.connection_id, l.record_id, l.time
       HAVING ${every} ORDER BY l.rid DESC LIMIT ${limit})`,
    `win${i} AS MATERIALIZED (SELECT * FROM (SELECT * FROM gin${i} UNION ALL SELECT * FROM walk${i}
       UNION ALL SELECT * FROM multi${i}) c ORDER BY rid DESC LIMIT ${window})`,
    // Matches found: the window, what the sparse plan or multi held beyond it, and the walk's older ones.
    `total${i} AS MATERIALIZED (SELECT (SELECT count(*) FROM gin${i}) + (SELECT count(*) FROM walk${i})
       + (SELECT count(*) FROM multi${i}) + (SELECT n FROM older${i}) AS n)`,
    `top${i} AS (
       SELECT ${i} AS scope, w.rid, w.score, w.connection_id, w.record_id, w.time, (SELECT n FROM total${i}) AS total
       FROM win${i} w
       ORDER BY w.score DESC, w.time DESC NULLS LAST, w.connection_id, w.record_id
       LIMIT ${params.add(query.k)})`,
  ];
  return { ctes, select: `SELECT * FROM top${i}` };
}

export interface CandidateRow extends Omit<Candidate, "scope" | "stream"> {
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
