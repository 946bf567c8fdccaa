// aggregate on Postgres: metrics over payload fields, group_by (arrays by element) and
// group_by_time with AT TIME ZONE and to_char keys identical to core/time-buckets.ts bucketKey.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { fieldSchemaAt, isTimeLike } from "../../core/manifest.js";
import type { AggregateQuery, AggregateResult, TimeGranularity } from "../store.js";
import { Params, payloadPath, scopesClause } from "./sql-scope.js";

const BUCKET_FORMAT: Record<TimeGranularity, string> = {
  minute: 'YYYY-MM-DD"T"HH24:MI',
  hour: 'YYYY-MM-DD"T"HH24',
  day: "YYYY-MM-DD",
  week: 'IYYY-"W"IW',
  month: "YYYY-MM",
  quarter: 'YYYY-"Q"Q',
  year: "YYYY",
};

/** Text form of a jsonb scalar as JS would print it (numbers through float8: 5.0 → "5"). */
function keyText(value: string): string {
  return `(CASE jsonb_typeof(${value})
    WHEN 'string' THEN ${value} #>> '{}'
    WHEN 'number' THEN ((${value})::numeric::float8)::text
    WHEN 'null' THEN NULL
    ELSE (${value})::text END)`;
}

/** The instant a time-like field holds, as timestamptz (NULL when absent or unparsable). */
function timeExpression(params: Params, scope: StreamScope, field: string): string {
  if (field === scope.stream.time_field) return "(r.time)::timestamptz";
  return `pdpp_try_time(${payloadPath(params, field)} #>> '{}')`;
}

/** SQL for the metric over the rows in scope (or in a group). */
function metricExpression(params: Params, scope: StreamScope, query: AggregateQuery): string {
  const { metric, field } = query;
  if (!field) return "count(*)";
  if (field === scope.stream.time_field) {
    if (metric === "count") return "count(r.time)";
    if (metric === "count_distinct") return "count(DISTINCT r.time)";
    if (metric === "min" || metric === "max") return `${metric}(r.time)`;
  }
  const p = payloadPath(params, field);
  const present = `(${p} IS NOT NULL AND jsonb_typeof(${p}) <> 'null')`;
  const numeric = `(CASE WHEN jsonb_typeof(${p}) = 'number' THEN (${p})::numeric END)`;
  const type = fieldSchemaAt(scope.stream, field)?.type;
  switch (metric) {
    case "count":
      return `count(*) FILTER (WHERE ${present})`;
    case "count_distinct":
      return `count(DISTINCT ${p}) FILTER (WHERE ${present})`;
    case "sum":
      return `sum(${numeric})`;
    default: {
      if (type === "number" || type === "integer") return `${metric}(${numeric})`;
      return `${metric}((CASE WHEN jsonb_typeof(${p}) = 'string' THEN ${p} #>> '{}' END) COLLATE "C")`;
    }
  }
}

function valueOut(query: AggregateQuery, scope: StreamScope, raw: unknown): number | string | null {
  if (raw === null || raw === undefined) return null;
  const { metric, field } = query;
  if (metric === "count" || metric === "count_distinct" || metric === "sum") return Number(raw);
  if (!field || field === scope.stream.time_field) return String(raw);
  const type = fieldSchemaAt(scope.stream, field)?.type;
  if ((type === "number" || type === "integer") && !isTimeLike(fieldSchemaAt(scope.stream, field)))
    return Number(raw);
  return String(raw);
}

export async function aggregate(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: AggregateQuery,
): Promise<AggregateResult> {
  if (scopes.length === 0)
    return {
      filteredRecordCount: 0,
      ...(query.groupBy || query.groupByTime
        ? { groups: [], groupCount: 0, otherCount: 0 }
        : { value: query.metric.startsWith("count") ? 0 : null }),
    };
  const scope = scopes[0];
  const params = new Params();
  const visible = scopesClause(params, scopes, { conditions: query.conditions });
  const visibleParams = [...params.values];
  const metric = metricExpression(params, scope, query);
  const base = `FROM records r WHERE ${visible}`;

  if (!query.groupBy && !query.groupByTime) {
    const { rows } = await pool.query<{ value: unknown; n: string }>(
      `SELECT ${metric} AS value, count(*) AS n ${base}`,
      params.values,
    );
    return { value: valueOut(query, scope, rows[0].value), filteredRecordCount: Number(rows[0].n) };
  }

  let keyFrom: string;
  let order: string;
  let lateral = "";
  if (query.groupByTime) {
    const { field, granularity, timeZone } = query.groupByTime;
    const t = timeExpression(params, scope, field);
    keyFrom = `to_char(${t} AT TIME ZONE ${params.add(timeZone)}, ${params.add(BUCKET_FORMAT[granularity])})`;
    // The most recent buckets are kept; the caller gets them in ascending key order.
    order = "key DESC";
  } else {
    const g = payloadPath(params, query.groupBy as string);
    lateral = `LEFT JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(${g}) = 'array' THEN ${g}
                 ELSE jsonb_build_array(${g}) END) AS ge(elem) ON TRUE`;
    keyFrom = keyText("ge.elem");
    order = 'value DESC NULLS LAST, key COLLATE "C" ASC NULLS FIRST';
  }
  const timeFilter = query.groupByTime ? "WHERE key IS NOT NULL" : "";
  const { rows } = await pool.query<{
    key: string | null;
    value: unknown;
    n: string;
    groups: string;
    members: string;
    records: string;
  }>(
    `WITH filtered AS (SELECT r.* ${base}),
     keyed AS (SELECT r.*, ${keyFrom} AS key FROM filtered r ${lateral}),
     grouped AS (SELECT key, ${metric} AS value, count(*) AS n FROM keyed r ${timeFilter} GROUP BY key)
     SELECT key, value, n, count(*) OVER () AS groups, sum(n) OVER () AS members,
            (SELECT count(*) FROM filtered) AS records
     FROM grouped ORDER BY ${order} LIMIT ${params.add(query.limit)}`,
    params.values,
  );
  const kept = query.groupByTime ? [...rows].reverse() : rows;
  const shownMembers = rows.reduce((sum, r) => sum + Number(r.n), 0);
  let filteredRecordCount = rows.length > 0 ? Number(rows[0].records) : 0;
  if (rows.length === 0) {
    const counted = await pool.query<{ n: string }>(`SELECT count(*) AS n ${base}`, visibleParams);
    filteredRecordCount = Number(counted.rows[0].n);
  }
  return {
    groups: kept.map((r) => ({ key: r.key, value: valueOut(query, scope, r.value) })),
    groupCount: rows.length > 0 ? Number(rows[0].groups) : 0,
    otherCount: rows.length > 0 ? Number(rows[0].members) - shownMembers : 0,
    filteredRecordCount,
  };
}
