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
  // Each term's "in some field" test tries text fields (long bodies: where a word most often is)
  // first; OR stops at its first hit, so a matching row is told with fewer lexeme lookups. The
  // same query in another order: same rows. A/B at 1M, backend CPU per common search: 5-8% less.
  const isText = (f: string) => scope.stream.text_fields?.includes(f) ?? false;
  const textFirst = [...fields.filter(isText), ...fields.filter((f) => !isText(f))];
  const all = `${params.add(taggedAllQuery(query.terms, textFirst))}::tsquery`;
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
  // - it names the stream by equality, so only the stream's partition is read (migration 11), and
  //   there it orders by (stream, rid): search_lex_newest, or the partition's primary key
  //   (rid, part, stream), which in a partition of one stream walks the same rows;
  // - its match test is `(CASE … THEN rid END) IS NOT NULL`: exact, not indexable (no GIN plan),
  //   and estimated at 99.5% (an opaque test is taken as 50%, and the planner then reads the whole
  //   stream through a bitmap to sort it whenever the LIMIT passes its estimate of the matches).
  // The sparse plan orders by rid + 0 so no index walk can stand in for the GIN lookup.
  const walkStream = `l.stream = ${params.add(scope.stream.name)}`;
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
    // The walk's size and oldest row, read once (each pass over its 10k rows costs ~1 ms).
    `walkstat${i} AS MATERIALIZED (SELECT count(*) AS n, min(rid) AS lo FROM walk${i})`,
    `older${i} AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM search_lex l ${join}
       WHERE ${walkFilter} AND l.rid < (SELECT lo FROM walkstat${i}) AND ${walkMatch}
         AND (SELECT n FROM walkstat${i}) >= ${window}
       ${walkOrder} LIMIT ${extra}) x)`,
    `multi${i} AS MATERIALIZED (SELECT ${columns}, ${multiScore} AS score FROM search_lex l ${join}
       WHERE l.parts > 1 AND ${where} ${checks} GROUP BY l.rid, l.connection_id, l.record_id, l.time
       HAVING ${every} ORDER BY l.rid DESC LIMIT ${limit})`,
    `win${i} AS MATERIALIZED (SELECT * FROM (SELECT * FROM gin${i} UNION ALL SELECT * FROM walk${i}
       UNION ALL SELECT * FROM multi${i}) c ORDER BY rid DESC LIMIT ${window})`,
    // Matches found: the window, what the sparse plan or multi held beyond it, and the walk's older ones.
    `total${i} AS MATERIALIZED (SELECT (SELECT count(*) FROM gin${i}) + (SELECT n FROM walkstat${i})
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

/** What the page's details need: the candidate order's slice, and what to read for its hits. */
export interface PageAsk {
  offset: number;
  limit: number;
  /** tsquery text: any term occurs (which search fields matched). */
  anyTerm: string;
  /** Search fields whose match is reported (the granted ones of the live scopes; JS narrows per hit). */
  fields: string[];
  /** Text fields read besides matched ones (title fields stored as text). */
  titles: string[];
  /** Read the stamp columns too (some scope projects fields: core/stamps.ts). */
  stamps: boolean;
}

/** A candidate row of searchSql: page rows carry the record's details (null on the others). */
export interface SearchRow extends CandidateRow {
  in_page: boolean;
  emitted_at: string | null;
  payload: Record<string, unknown> | null;
  matched: string[] | null;
  texts: { path: string; size: string | number; digest: string; text: string | null }[] | null;
  version?: string | null;
  stamps?: unknown;
  base_version?: string | null;
  base_emitted_at?: string | null;
}

/**
 * The whole search in ONE statement (issue 10: at most 3 round trips per request): every scope's
 * best k candidates, as candidatesSql; the page cut from them in the contract's order (score desc,
 * time desc nulls last, connection, stream, record id, all in byte order as in search.ts); and for
 * the page's records only, the stored emitted_at (and stamps, for projected grants), the payload,
 * the matched search fields and the first chunk of the text fields a snippet or title may need.
 * search.ts sorts the candidates itself and uses these details only when its page is this page.
 */
export function searchSql(scopes: StreamScope[], query: SearchQuery & { k: number }, page: PageAsk) {
  const params = new Params();
  const parts = scopes.map((scope, index) => scopeSql(params, scope, { ...query, index }));
  const names = scopes.map((s) => s.stream.name);
  const stamps = page.stamps
    ? ", r.version::text AS version, r.stamps, r.base_version::text AS base_version, r.base_emitted_at"
    : "";
  const sql = `WITH ${parts.flatMap((p) => p.ctes).join(",\n")},
    cand AS MATERIALIZED (${parts.map((p) => p.select).join(" UNION ALL ")}),
    page AS MATERIALIZED (SELECT c.rid FROM cand c
      ORDER BY c.score DESC, c.time COLLATE "C" DESC NULLS LAST, c.connection_id COLLATE "C",
               (${params.add(names)}::text[])[c.scope + 1] COLLATE "C", c.record_id COLLATE "C"
      OFFSET ${params.add(page.offset)} LIMIT ${params.add(page.limit)}),
    det AS MATERIALIZED (
      SELECT r.rid, r.emitted_at, r.payload, m.matched, t.texts${stamps}
      FROM (SELECT DISTINCT rid FROM page) p JOIN records r ON r.rid = p.rid
      CROSS JOIN LATERAL (SELECT array_agg(DISTINCT d.field) AS matched FROM search_docs d
        WHERE d.rid = r.rid AND d.field = ANY(${params.add(page.fields)}::text[])
          AND d.tsv @@ ${params.add(page.anyTerm)}::tsquery) m
      CROSS JOIN LATERAL (SELECT json_agg(json_build_object('path', f.path, 'size', f.size_chars,
          'digest', f.digest, 'text', (SELECT c.body FROM text_chunks c
            WHERE c.rid = f.rid AND c.path = f.path AND c.seq = 0))) AS texts
        FROM text_fields f
        WHERE f.rid = r.rid AND (f.path = ANY(m.matched) OR f.path = ANY(${params.add(page.titles)}::text[]))) t)
    SELECT c.*, c.rid IN (SELECT rid FROM page) AS in_page, det.emitted_at, det.payload, det.matched,
           det.texts${page.stamps ? ", det.version, det.stamps, det.base_version, det.base_emitted_at" : ""}
    FROM cand c LEFT JOIN det ON det.rid = c.rid`;
  return { sql, values: params.values };
}
