// search on Postgres: per-field tsvector rows (GIN), AND across the union of granted fields,
// ts_rank_cd scores, and honest recall (exact ranking up to rankWindow matches, else the newest).
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { SearchQuery, SearchResult, StoredSearchHit } from "../store.js";
import { scopeFinder } from "./reads.js";
import { buildHitDetails } from "./search-hits.js";
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
  score: number;
  total: string;
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
  const allowed = allowedPairs(scopes);
  if (query.terms.length === 0 || allowed.fields.length === 0) return empty;

  const params = new Params();
  const visible = scopesClause(params, scopes, { conditions: query.conditions });
  const any = `${params.add(anyTermQuery(query.terms))}::tsquery`;
  const pairs = `(r.connection_id, d.field) IN (SELECT * FROM unnest(${params.add(allowed.connections)}::text[], ${params.add(allowed.fields)}::text[]))`;
  const every = query.terms
    .map((t) => `bool_or(d.tsv @@ ${params.add(termQuery(t))}::tsquery)`)
    .join(" AND ");
  const order = "r.time DESC NULLS LAST, r.connection_id, r.stream, r.record_id";
  // The match set is computed once (MATERIALIZED); only the candidates are scored, so a query
  // matching most of the store costs one index scan plus rankWindow scores, not a score per match.
  const { rows } = await pool.query<RankedRow>(
    `WITH m AS MATERIALIZED (
       SELECT d.rid FROM search_docs d JOIN records r ON r.rid = d.rid
       WHERE d.tsv @@ ${any} AND ${pairs} AND ${visible}
       GROUP BY d.rid HAVING ${every}
     ),
     cand AS (
       SELECT r.rid FROM m JOIN records r ON r.rid = m.rid ORDER BY ${order} LIMIT ${params.add(query.rankWindow)}
     ),
     scored AS (
       SELECT cand.rid, (SELECT sum(ts_rank_cd(d.tsv, ${any}))
                         FROM search_docs d JOIN records r ON r.rid = d.rid
                         WHERE d.rid = cand.rid AND d.tsv @@ ${any} AND ${pairs})::float8 AS score
       FROM cand
     )
     SELECT r.rid, r.connection_id, c.connector_key, r.stream, r.record_id, r.time, r.emitted_at, r.payload,
            s.score, (SELECT count(*) FROM m) AS total
     FROM scored s JOIN records r ON r.rid = s.rid JOIN connections c ON c.connection_id = r.connection_id
     ORDER BY s.score DESC, ${order}
     LIMIT ${params.add(query.limit + 1)} OFFSET ${params.add(query.offset)}`,
    params.values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : await countMatches(pool, scopes, query);
  const complete = total <= query.rankWindow;
  const page = rows.slice(0, query.limit);
  const details = await buildHitDetails(pool, page, { scopeOf: scopeFinder(scopes), terms: query.terms });
  const hits: StoredSearchHit[] = page.map((row, i) => ({
    connectionId: row.connection_id,
    connectorKey: row.connector_key,
    stream: row.stream,
    recordId: row.record_id,
    time: row.time,
    emittedAt: row.emitted_at,
    score: Number(row.score),
    ...details[i],
  }));
  return {
    hits,
    hasMore: rows.length > query.limit,
    recall: complete
      ? { complete: true, rankingScope: "all_matches" }
      : { complete: false, rankingScope: "candidate_window", matchedEstimate: total },
  };
}

/** Matches when the page came back empty (an offset past the end still needs honest recall). */
async function countMatches(pool: pg.Pool, scopes: StreamScope[], query: SearchQuery): Promise<number> {
  const allowed = allowedPairs(scopes);
  const params = new Params();
  const visible = scopesClause(params, scopes, { conditions: query.conditions });
  const any = `${params.add(anyTermQuery(query.terms))}::tsquery`;
  const pairs = `(r.connection_id, d.field) IN (SELECT * FROM unnest(${params.add(allowed.connections)}::text[], ${params.add(allowed.fields)}::text[]))`;
  const every = query.terms
    .map((t) => `bool_or(d.tsv @@ ${params.add(termQuery(t))}::tsquery)`)
    .join(" AND ");
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT d.rid FROM search_docs d JOIN records r ON r.rid = d.rid
       WHERE d.tsv @@ ${any} AND ${pairs} AND ${visible} GROUP BY d.rid HAVING ${every}) m`,
    params.values,
  );
  return Number(rows[0].n);
}
