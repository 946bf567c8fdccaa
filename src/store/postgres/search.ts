// search on Postgres: per-field tsvector rows (GIN), AND across the union of granted fields,
// ts_rank_cd scores, and honest recall as on SQLite: per scope, exact ranking when it has at most
// rankWindow matches, else ranking over its rankWindow newest (last ingested) matches.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import { scopeFinder } from "./reads.js";
import { hitDetails } from "./search-hits.js";
import { allowedPairs, anyTermQuery, termQuery } from "./search-sql.js";
import { Params, scopesClause } from "./sql-scope.js";

interface RankedRow {
  rid: string;
  connection_id: string;
  connector_key: string;
  stream: string;
  record_id: string;
  time: string | null;
  emitted_at: string;
  payload: Record<string, unknown>;
  matched: string[] | null;
  score: number;
  total: string;
  widest: string;
}

export async function search(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: SearchQuery,
): Promise<SearchResult> {
  const empty: SearchResult = {
    hits: [],
    hasMore: false,
    recall: { complete: true, rankingScope: "all_matches" },
  };
  const live = scopes.filter((s) => s.connectionIds.length > 0);
  const allowed = allowedPairs(live);
  if (query.terms.length === 0 || allowed.fields.length === 0) return empty;

  const params = new Params();
  const visible = scopesClause(params, live, { conditions: query.conditions });
  const any = `${params.add(anyTermQuery(query.terms))}::tsquery`;
  const pairs = `(r.connection_id, d.field) IN (SELECT * FROM unnest(${params.add(allowed.connections)}::text[], ${params.add(allowed.fields)}::text[]))`;
  const every = query.terms
    .map((t) => `bool_or(d.tsv @@ ${params.add(termQuery(t))}::tsquery)`)
    .join(" AND ");
  const order = "r.time DESC NULLS LAST, r.connection_id, r.stream, r.record_id";
  // The match set is computed once; only each scope's candidates are scored, so a query matching
  // most of the store costs one index scan plus rankWindow scores per scope, not a score per match.
  const sql = `
    WITH m AS MATERIALIZED (
      SELECT d.rid, r.stream, r.connection_id, array_agg(DISTINCT d.field) AS matched
      FROM search_docs d JOIN records r ON r.rid = d.rid
      WHERE d.tsv @@ ${any} AND ${pairs} AND ${visible}
      GROUP BY d.rid, r.stream, r.connection_id HAVING ${every}
    ),
    per_scope AS (
      SELECT m.rid, m.matched,
             row_number() OVER (PARTITION BY m.stream, c.connector_key ORDER BY m.rid DESC) AS pos,
             count(*) OVER (PARTITION BY m.stream, c.connector_key) AS scope_total
      FROM m JOIN connections c ON c.connection_id = m.connection_id
    ),
    cand AS (SELECT * FROM per_scope WHERE pos <= ${params.add(query.rankWindow)}),
    scored AS (
      SELECT cand.rid, cand.matched, cand.scope_total,
             (SELECT sum(ts_rank_cd(d.tsv, ${any})) FROM search_docs d JOIN records r ON r.rid = d.rid
              WHERE d.rid = cand.rid AND d.tsv @@ ${any} AND ${pairs})::float8 AS score
      FROM cand
    )
    SELECT r.rid, r.connection_id, c.connector_key, r.stream, r.record_id, r.time, r.emitted_at, r.payload,
           s.matched, s.score, (SELECT count(*) FROM m) AS total, (SELECT max(scope_total) FROM cand) AS widest
    FROM scored s JOIN records r ON r.rid = s.rid JOIN connections c ON c.connection_id = r.connection_id
    ORDER BY s.score DESC, ${order}
    LIMIT ${params.add(query.limit + 1)} OFFSET ${params.add(query.offset)}`;
  const { rows } = await pool.query<RankedRow>(sql, params.values);
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  let widest = rows.length > 0 ? Number(rows[0].widest) : 0;
  if (rows.length === 0 && query.offset > 0) {
    // An offset past the end still owes an honest recall statement.
    const again = await pool.query<RankedRow>(sql.replace(/OFFSET \$\d+$/, "OFFSET 0"), params.values);
    total = again.rows.length > 0 ? Number(again.rows[0].total) : 0;
    widest = again.rows.length > 0 ? Number(again.rows[0].widest) : 0;
  }
  const page = rows.slice(0, query.limit);
  const scopeOf = scopeFinder(live);
  const hits: StoredSearchHit[] = [];
  for (const row of page) {
    const details = await hitDetails(pool, row, { scope: scopeOf(row), terms: query.terms });
    hits.push({
      connectionId: row.connection_id,
      connectorKey: row.connector_key,
      stream: row.stream,
      recordId: row.record_id,
      time: row.time,
      emittedAt: row.emitted_at,
      score: Number(row.score),
      ...details,
    });
  }
  const complete = widest <= query.rankWindow;
  return {
    hits,
    hasMore: rows.length > query.limit,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: total },
  };
}
