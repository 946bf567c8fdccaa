// The primitives core/search-ranking.ts ranks from, on Postgres: every (scope, positive clause)'s
// visible matches, newest first (by rid, insertion order), at most limit + 1 — all in ONE statement
// — and the chosen candidates' keys and granted texts in a second. Before them, a lookup of
// search_df's exact per-term row counts bounds each single-word clause's matches (matchBoundsSql).
//
// Matching reads the lexeme rows (one per record: its distinct field-tagged index terms, so a
// clause is tested in the scope's granted fields only); a phrase's adjacency is confirmed on the
// per-field rows (search_docs). How a clause's matches are found is chosen by selectivity, measured
// rather than estimated (the planner's tsvector estimates were off 25×, and a GIN lookup of a broad
// term reads its whole posting list): a probe tests the scope's newest PROBE_ROWS rows; a dense
// clause walks (stream, rid) backwards and stops at limit + 1 matches, a sparse one takes its
// matches from the GIN index. A clause search_df shows past the limit stops at the window's newest
// `offer` matches and counts as limit + 1; one it shows under the limit goes to the GIN index
// unprobed; one it shows without matches is not read. The choice changes the work, never the rows.
import type { StreamScope } from "../../core/grant.js";
import type { SearchClause } from "../../core/search-query.js";
import { positiveClauses } from "../../core/search-query.js";
import { normalizeTime } from "../../core/time.js";
import type { SearchQuery } from "../store.js";
import { taggedLexeme } from "./search-index.js";
import { clauseQuery, grantedSearchFields, taggedClause } from "./search-sql.js";
import { conditionsClause, Params, scopeClause } from "./sql-scope.js";

/** Rows the density probe tests, newest first (the same rows for the same data: no randomness). */
const PROBE_ROWS = 512;
/** Matches among them from which walking beats the GIN index (~6%). */
const DENSE_MATCHES = 32;

/** The CTEs of one (scope, clause) and the SELECT of its matches. */
function clauseSql(
  params: Params,
  scope: StreamScope,
  at: {
    query: SearchQuery;
    clause: SearchClause;
    scopeIndex: number;
    clauseIndex: number;
    limit1: number;
    offer: number;
    /** What search_df showed of the clause's visible matches (see ClausePlan). */
    plan: ClausePlan;
  },
) {
  const { query, clause } = at;
  const name = `s${at.scopeIndex}c${at.clauseIndex}`;
  const fields = grantedSearchFields(scope);
  let fieldsParam = "";
  const join =
    query.conditions.length > 0
      ? `JOIN records r ON r.rid = l.rid AND ${scopeClause(params, scope)} AND ${conditionsClause(params, scope, query.conditions)}`
      : "";
  const bounds = [
    scope.since ? `AND l.time >= ${params.add(normalizeTime(scope.since))}` : "",
    scope.until ? `AND l.time < ${params.add(normalizeTime(scope.until))}` : "",
  ].join(" ");
  const stream = params.add(scope.stream.name);
  const where = `l.stream = ${stream} AND l.connection_id = ANY(${params.add(scope.connectionIds)}::text[]) ${bounds}`;
  const wanted = [clause, ...query.clauses.filter((c) => c.occur === "must" && c !== clause)];
  const excluded = query.clauses.filter((c) => c.occur === "not");
  // Position-free test on the lexeme row: every wanted clause, no excluded word or prefix.
  const lexParts = wanted.map((c) => taggedClause(c.match, fields));
  const plainExcluded = excluded.filter((c) => c.match.kind !== "phrase");
  if (plainExcluded.length > 0)
    lexParts.push(`!(${plainExcluded.map((c) => taggedClause(c.match, fields)).join(" | ")})`);
  const lex = `${params.add(lexParts.join(" & "))}::tsquery`;
  // Phrases: adjacency on the per-field rows (wanted ones must occur, excluded ones must not).
  const docs = (c: SearchClause) => {
    fieldsParam ||= params.add(fields);
    return `EXISTS (SELECT 1 FROM search_docs d WHERE d.rid = l.rid AND d.field = ANY(${fieldsParam}::text[])
       AND d.tsv @@ ${params.add(clauseQuery(c.match))}::tsquery)`;
  };
  const checks = [
    ...wanted.filter((c) => c.match.kind === "phrase").map((c) => `AND ${docs(c)}`),
    ...excluded.filter((c) => c.match.kind === "phrase").map((c) => `AND NOT ${docs(c)}`),
  ].join(" ");
  // Records whose word set spans several lexeme parts (few, huge): each word in some part.
  const having = [
    ...wanted
      .filter((c) => c.match.kind !== "phrase")
      .map((c) => `bool_or(l.tsv @@ ${params.add(taggedClause(c.match, fields))}::tsquery)`),
    ...plainExcluded.map(
      (c) => `NOT bool_or(l.tsv @@ ${params.add(taggedClause(c.match, fields))}::tsquery)`,
    ),
  ];
  // Enough rows to count limit + 1 and to offer the window's newest `offer` (only those when the
  // count is already known to reach limit + 1).
  const limit = params.add(at.plan === "capped" ? at.offer : Math.max(at.limit1, at.offer));
  // The walk must be search_lex_newest backwards and the planner must believe it stops early: it
  // names the stream by equality (one partition), orders by (stream, rid), and its match test is
  // opaque (`CASE … END IS NOT NULL`, estimated at 99.5%, so no GIN plan and no full sort). The
  // sparse plan orders by rid + 0 so no index walk stands in for the GIN lookup.
  const walkOrder = "ORDER BY l.stream DESC, l.rid DESC";
  const walkFilter = `l.parts = 1 AND ${where}`;
  const multi = `(SELECT l.rid FROM search_lex l ${join} WHERE l.parts > 1 AND ${where} ${checks}
          GROUP BY l.rid HAVING ${having.length > 0 ? having.join(" AND ") : "true"}
          ORDER BY l.rid DESC LIMIT ${limit})`;
  // Known to have at most limit matches: every one is wanted, and the GIN index finds them without
  // reading the rows between them (no probe needed).
  const sparse = [
    `${name} AS MATERIALIZED (SELECT * FROM (
       (SELECT l.rid FROM search_lex l ${join} WHERE ${walkFilter} AND l.tsv @@ ${lex} ${checks}
          ORDER BY l.rid + 0 DESC LIMIT ${limit})
       UNION ALL
       ${multi}) m ORDER BY rid DESC LIMIT ${limit})`,
  ];
  const ctes =
    at.plan === "sparse"
      ? sparse
      : [
          `${name}_dense AS MATERIALIZED (SELECT count(*) >= ${DENSE_MATCHES} AS dense FROM (
       SELECT l.rid, l.tsv FROM search_lex l ${join} WHERE ${walkFilter} ${walkOrder} LIMIT ${PROBE_ROWS}) l
       WHERE l.tsv @@ ${lex} ${checks})`,
          `${name} AS MATERIALIZED (SELECT * FROM (
       (SELECT l.rid FROM search_lex l ${join} WHERE ${walkFilter} AND l.tsv @@ ${lex} ${checks}
          AND NOT (SELECT dense FROM ${name}_dense) ORDER BY l.rid + 0 DESC LIMIT ${limit})
       UNION ALL
       (SELECT l.rid FROM search_lex l ${join} WHERE ${walkFilter}
          AND (CASE WHEN l.tsv @@ ${lex} THEN l.rid END) IS NOT NULL ${checks}
          AND (SELECT dense FROM ${name}_dense) ${walkOrder} LIMIT ${limit})
       UNION ALL
       ${multi}) m ORDER BY rid DESC LIMIT ${limit})`,
        ];
  // Every match when at most the limit, else the newest `offer`; each row carries the count (the
  // caller reads it as at most limit + 1; limit + 1 itself when search_df showed that many).
  const limit1 = params.add(at.limit1);
  const count = at.plan === "capped" ? `${limit1}::bigint` : "count(*) OVER ()";
  return {
    ctes,
    select: `SELECT ${at.scopeIndex} AS scope, ${at.clauseIndex} AS clause, rid::text, n FROM (
      SELECT rid, row_number() OVER (ORDER BY rid DESC) AS k, ${count} AS n FROM ${name}) x
      WHERE n < ${limit1} OR k <= ${params.add(at.offer)}`,
  };
}

/**
 * Every (scope, positive clause)'s visible matches, newest first: all when at most limit1 - 1,
 * else the newest `offer` (counting at most max(limit1, offer)).
 */
export function clauseHitsSql(
  scopes: StreamScope[],
  query: SearchQuery,
  at: { limit1: number; offer: number; plans?: Map<string, ClausePlan> },
) {
  const params = new Params();
  const positive = positiveClauses(query.clauses);
  const parts = scopes.flatMap((scope, scopeIndex) =>
    positive.flatMap((clause, clauseIndex) => {
      const plan = at.plans?.get(`${scopeIndex}/${clauseIndex}`) ?? "count";
      if (plan === "none") return [];
      return [
        clauseSql(params, scope, {
          query,
          clause,
          scopeIndex,
          clauseIndex,
          limit1: at.limit1,
          offer: at.offer,
          plan,
        }),
      ];
    }),
  );
  if (parts.length === 0) return null;
  const sql = `WITH ${parts.flatMap((p) => p.ctes).join(",\n")}
    ${parts.map((p) => p.select).join(" UNION ALL ")}`;
  return { sql, values: params.values };
}

/**
 * How a (scope, clause)'s matches are read, from what search_df showed: "count" (nothing known:
 * probe, then walk or GIN up to limit + 1), "capped" (at least limit + 1: only the newest `offer`,
 * counted as limit + 1), "sparse" (at most limit: all of them from the GIN index), "none" (no
 * match: not read at all).
 */
export type ClausePlan = "count" | "capped" | "sparse" | "none";

/** The plan search_df's bounds allow (see matchBoundsSql). */
export function clausePlan(bounds: { floor: number; ceiling: number }, limit1: number): ClausePlan {
  if (bounds.ceiling === 0) return "none";
  if (bounds.floor >= limit1) return "capped";
  if (bounds.ceiling < limit1) return "sparse";
  return "count";
}

/**
 * For the (scope, clause) pairs search_df can answer, bounds of the clause's visible matches: the
 * floor is the most rows of the granted connections holding the term in one granted search field
 * (each of them matches), the ceiling the sum over those fields (every match holds it in one). Only a single-word clause of a query with no other required or excluded
 * clause, in a scope with no time range and a search without filters, is matched by exactly those
 * rows; search_df counts whole connections, so it says nothing about a time range. Null when no
 * pair qualifies. Rows: { key: "scope/clause", floor, ceiling }.
 */
export function matchBoundsSql(scopes: StreamScope[], query: SearchQuery) {
  if (query.conditions.length > 0) return null;
  if (query.clauses.some((c) => c.occur === "not")) return null;
  const required = query.clauses.filter((c) => c.occur === "must");
  // One (pair, stream, tagged term, connection) row per count to read: one small plan for every
  // pair (a SELECT per pair cost ~19 ms to plan and run at load 20 for a 9-word question).
  const rows = {
    key: [] as string[],
    stream: [] as string[],
    lexeme: [] as string[],
    connection: [] as string[],
  };
  const positive = positiveClauses(query.clauses);
  scopes.forEach((scope, scopeIndex) => {
    if (scope.since || scope.until) return;
    const fields = grantedSearchFields(scope);
    positive.forEach((clause, clauseIndex) => {
      if (clause.match.kind !== "term") return;
      if (required.some((c) => c !== clause)) return;
      const term = clause.match.term;
      for (const lexeme of fields.flatMap((f) => taggedLexeme(f, term) ?? []))
        for (const connection of scope.connectionIds) {
          rows.key.push(`${scopeIndex}/${clauseIndex}`);
          rows.stream.push(scope.stream.name);
          rows.lexeme.push(lexeme);
          rows.connection.push(connection);
        }
    });
  });
  if (rows.key.length === 0) return null;
  return {
    sql: `SELECT t.key, coalesce(max(t.n), 0)::text AS floor, coalesce(sum(t.n), 0)::text AS ceiling FROM (
        SELECT q.key, q.lexeme, sum(d.n) AS n
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS q(key, stream, lexeme, connection_id)
        LEFT JOIN search_df d
          ON d.stream = q.stream AND d.lexeme = q.lexeme AND d.connection_id = q.connection_id
        GROUP BY q.key, q.lexeme) t
      GROUP BY t.key`,
    values: [rows.key, rows.stream, rows.lexeme, rows.connection],
  };
}

export interface ClauseHitRow {
  scope: number;
  clause: number;
  rid: string;
  /** The (scope, clause)'s matches counted, at most limit + 1. */
  n: string;
}

/** The candidates' keys, payloads and first chunks of their granted text fields. */
export function candidateDocsSql(rids: string[], textPaths: string[]) {
  return {
    sql: `SELECT r.rid::text AS rid, r.connection_id, r.stream, r.record_id, r.time, r.payload,
            (SELECT json_object_agg(c.path, c.body) FROM text_chunks c
             WHERE c.rid = r.rid AND c.seq = 0 AND c.path = ANY($2::text[])) AS texts
          FROM records r WHERE r.rid = ANY($1::bigint[]) AND NOT r.deleted`,
    values: [rids, textPaths],
  };
}

export interface CandidateDocRow {
  rid: string;
  connection_id: string;
  stream: string;
  record_id: string;
  time: string | null;
  payload: Record<string, unknown>;
  texts: Record<string, string> | null;
}
