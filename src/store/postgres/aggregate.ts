// aggregate on Postgres: metrics over payload fields, group_by (arrays by element) and
// group_by_time with AT TIME ZONE and to_char keys identical to core/time-buckets.ts bucketKey.
// Ordering and key rules mirror sqlite/aggregate.ts (values desc, keys asc in byte order, nulls last).
import type pg from "pg";
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import { resolveTimeZone } from "../../core/time-buckets.js";
import type { AggregateQuery, AggregateResult, TimeGranularity } from "../store.js";
import { aggregateByHour, combinable } from "./aggregate-time.js";
import { fieldKind, Params, payloadPath, requireGranted, scopesClause, timeLikeExpr } from "./sql-scope.js";

const BUCKET_FORMAT: Record<TimeGranularity, string> = {
  minute: 'YYYY-MM-DD"T"HH24:MI',
  hour: 'YYYY-MM-DD"T"HH24',
  day: "YYYY-MM-DD",
  week: 'IYYY-"W"IW',
  month: "YYYY-MM",
  quarter: 'YYYY-"Q"Q',
  year: "YYYY",
};

/** Text form of a jsonb scalar as JS prints it (numbers through float8: 5.0 → "5"). */
function keyText(jsonb: string): string {
  return `(CASE jsonb_typeof(${jsonb})
    WHEN 'string' THEN ${jsonb} #>> '{}'
    WHEN 'number' THEN ((${jsonb})::numeric::float8)::text
    WHEN 'null' THEN NULL
    ELSE (${jsonb})::text END)`;
}

type ValueKind = "number" | "text";

/** A field's comparable value: normalised time, typed number, or text (byte order). */
function fieldValue(params: Params, scope: StreamScope, field: string): { sql: string; kind: ValueKind } {
  const kind = fieldKind(scope.stream, field);
  if (kind === "time_column") return { sql: "r.time", kind: "text" };
  if (kind === "time_like") return { sql: timeLikeExpr(params, field), kind: "text" };
  const p = payloadPath(params, field);
  const type = fieldSchemaAt(scope.stream, field)?.type;
  if (type === "number" || type === "integer") {
    return { sql: `(CASE WHEN jsonb_typeof(${p}) = 'number' THEN (${p})::float8 END)`, kind: "number" };
  }
  if (kind === "boolean")
    return {
      sql: `(CASE WHEN jsonb_typeof(${p}) = 'boolean' THEN (${p})::boolean::int END)`,
      kind: "number",
    };
  return {
    sql: `(CASE WHEN jsonb_typeof(${p}) = 'string' THEN ${p} #>> '{}' END) COLLATE "C"`,
    kind: "text",
  };
}

function metricSql(
  params: Params,
  scope: StreamScope,
  query: AggregateQuery,
): { sql: string; kind: ValueKind } {
  if (!query.field) {
    if (query.metric !== "count") {
      throw new PdppError("invalid_request", `metric ${query.metric} needs a field.`, { param: "field" });
    }
    return { sql: "count(*)", kind: "number" };
  }
  if (query.metric === "count" || query.metric === "count_distinct") {
    // Any non-null JSON value counts (arrays and objects included), as json_extract does on SQLite.
    const kind = fieldKind(scope.stream, query.field);
    const v =
      kind === "time_column" || kind === "time_like"
        ? fieldValue(params, scope, query.field).sql
        : nonNull(params, query.field);
    return { sql: query.metric === "count" ? `count(${v})` : `count(DISTINCT ${v})`, kind: "number" };
  }
  const value = fieldValue(params, scope, query.field);
  if (query.metric === "sum")
    return { sql: `sum(${value.kind === "number" ? value.sql : "NULL::float8"})`, kind: "number" };
  return { sql: `${query.metric}(${value.sql})`, kind: value.kind };
}

function nonNull(params: Params, field: string): string {
  const p = payloadPath(params, field);
  return `(CASE WHEN jsonb_typeof(${p}) <> 'null' THEN ${p} END)`;
}

function valueOut(kind: ValueKind, raw: unknown): number | string | null {
  if (raw === null || raw === undefined) return null;
  return kind === "number" ? Number(raw) : String(raw);
}

export async function aggregate(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: AggregateQuery,
): Promise<AggregateResult> {
  const live = scopes.filter((s) => s.connectionIds.length > 0);
  const groupField = query.groupBy ?? query.groupByTime?.field;
  const zone = query.groupByTime ? resolveTimeZone(query.groupByTime.timeZone) : undefined;
  for (const scope of live) {
    if (query.field) requireGranted(scope, query.field);
    if (groupField) requireGranted(scope, groupField, query.groupBy ? "group_by" : "group_by_time");
  }
  if (live.length === 0) {
    return groupField
      ? { groups: [], groupCount: 0, otherCount: 0, filteredRecordCount: 0 }
      : {
          value: query.metric === "count" || query.metric === "count_distinct" ? 0 : null,
          filteredRecordCount: 0,
        };
  }
  const scope = live[0];
  const params = new Params();
  const visible = scopesClause(params, live, { conditions: query.conditions });
  const visibleParams = [...params.values];
  const countVisible = async (): Promise<number> => {
    const counted = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM records r WHERE ${visible}`,
      visibleParams,
    );
    return Number(counted.rows[0].n);
  };
  const metric = metricSql(params, scope, query);
  if (
    query.groupByTime &&
    zone &&
    fieldKind(scope.stream, query.groupByTime.field) === "time_column" &&
    combinable(query.metric)
  ) {
    const fast = await aggregateByHour(pool, params, {
      visible,
      metric: { ...metric, name: query.metric },
      zone,
      format: BUCKET_FORMAT[query.groupByTime.granularity],
      granularity: query.groupByTime.granularity,
      limit: query.limit,
    });
    return groupsResult(fast.rows, {
      kind: metric.kind,
      ascending: true,
      filteredRecordCount: fast.filtered ?? (await countVisible()),
    });
  }
  const filteredRecordCount = await countVisible();

  if (!groupField) {
    const { rows } = await pool.query<{ value: unknown }>(
      `SELECT ${metric.sql} AS value FROM records r WHERE ${visible}`,
      params.values,
    );
    return { value: valueOut(metric.kind, rows[0].value), filteredRecordCount };
  }

  let key: string;
  let from = "records r";
  if (query.groupByTime) {
    const t = fieldValue(params, scope, query.groupByTime.field).sql;
    key = `to_char((${t})::timestamptz AT TIME ZONE ${params.add(zone)}, ${params.add(BUCKET_FORMAT[query.groupByTime.granularity])})`;
  } else if (fieldKind(scope.stream, groupField) === "array") {
    // Inner join: a record without elements is in no group (json_each on SQLite agrees).
    const g = payloadPath(params, groupField);
    from = `records r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN ${g} IS NULL THEN '[]'::jsonb
              WHEN jsonb_typeof(${g}) = 'array' THEN ${g} ELSE jsonb_build_array(${g}) END) AS ge(elem)`;
    key = keyText("ge.elem");
  } else if (fieldKind(scope.stream, groupField) === "boolean") {
    key = keyText(payloadPath(params, groupField));
  } else if (fieldKind(scope.stream, groupField) === "plain") {
    key = keyText(payloadPath(params, groupField));
  } else {
    key = fieldValue(params, scope, groupField).sql;
  }
  const timeOnly = query.groupByTime ? "WHERE key IS NOT NULL" : "";
  const order = query.groupByTime
    ? 'key COLLATE "C" DESC'
    : `value DESC NULLS LAST, key COLLATE "C" ASC NULLS LAST`;
  const { rows } = await pool.query<{
    key: string | null;
    value: unknown;
    n: string;
    groups: string;
    members: string;
  }>(
    `WITH grouped AS (
       SELECT * FROM (SELECT ${key} AS key, ${metric.sql} AS value, count(*) AS n FROM ${from}
                      WHERE ${visible} GROUP BY 1) g ${timeOnly}
     )
     SELECT key, value, n, count(*) OVER () AS groups, sum(n) OVER () AS members
     FROM grouped ORDER BY ${order} LIMIT ${params.add(query.limit)}`,
    params.values,
  );
  return groupsResult(rows, { kind: metric.kind, ascending: !!query.groupByTime, filteredRecordCount });
}

/** Groups as the contract shows them; time buckets were read newest first and are shown ascending. */
function groupsResult(
  rows: { key: string | null; value: unknown; n: string; groups: string; members: string }[],
  options: { kind: ValueKind; ascending: boolean; filteredRecordCount: number },
): AggregateResult {
  const shown = options.ascending ? [...rows].reverse() : rows;
  const shownMembers = rows.reduce((sum, r) => sum + Number(r.n), 0);
  return {
    groups: shown.map((r) => ({ key: r.key, value: valueOut(options.kind, r.value) })),
    groupCount: rows.length > 0 ? Number(rows[0].groups) : 0,
    otherCount: rows.length > 0 ? Number(rows[0].members) - shownMembers : 0,
    filteredRecordCount: options.filteredRecordCount,
  };
}
