// Aggregates of the SQLite store in SQL: metrics over the visible, filtered rows, optional group_by
// (array fields group by element) or group_by_time (JS bucket function over normalised times).
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import type { StreamDef } from "../../core/manifest.js";
import { resolveTimeZone } from "../../core/time-buckets.js";
import type { AggregateQuery, AggregateResult } from "../store.js";
import { countByTimeBucket } from "./aggregate-time.js";
import type { SqliteDb } from "./db.js";
import {
  fieldExpr,
  fieldKind,
  jsonPath,
  normalizeScopes,
  requireGranted,
  type SqlParam,
  type SqlPart,
  scopesWhere,
} from "./scope-sql.js";
import { compareCodePoints } from "./search.js";

type Value = number | string | null;

function metricSql(stream: StreamDef, query: AggregateQuery): SqlPart {
  if (!query.field) {
    if (query.metric !== "count") {
      throw new PdppError("invalid_request", `metric ${query.metric} needs a field.`, { param: "field" });
    }
    return { sql: "count(*)", params: [] };
  }
  const expr = fieldExpr(stream, query.field);
  return query.metric === "count_distinct"
    ? { sql: `count(DISTINCT ${expr.sql})`, params: expr.params }
    : { sql: `${query.metric}(${expr.sql})`, params: expr.params };
}

function keyString(value: unknown, boolean: boolean): string | null {
  if (value === null || value === undefined) return null;
  if (boolean && (value === 0 || value === 1)) return value === 1 ? "true" : "false";
  return String(value);
}

function compareValuesDesc(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === "number" && typeof b === "number") return b - a;
  return compareCodePoints(String(b), String(a));
}

function compareKeysAsc(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareCodePoints(a, b);
}

interface GroupRow {
  key: unknown;
  value: Value;
  n: number;
}

export function aggregate(db: SqliteDb, scopes: StreamScope[], query: AggregateQuery): AggregateResult {
  const live = normalizeScopes(scopes);
  const groupField = query.groupBy ?? query.groupByTime?.field;
  const zone = query.groupByTime ? resolveTimeZone(query.groupByTime.timeZone) : undefined;
  for (const scope of live) {
    if (query.field) requireGranted(scope, query.field);
    if (groupField) requireGranted(scope, groupField, query.groupBy ? "group_by" : "group_by_time");
  }
  if (live.length === 0) {
    return query.groupBy || query.groupByTime
      ? { groups: [], groupCount: 0, otherCount: 0, filteredRecordCount: 0 }
      : {
          value: query.metric === "count" || query.metric === "count_distinct" ? 0 : null,
          filteredRecordCount: 0,
        };
  }
  const stream = live[0].stream;
  const where = scopesWhere(live, query.conditions);
  if (
    query.groupByTime &&
    query.metric === "count" &&
    fieldKind(stream, query.groupByTime.field) === "time_column"
  ) {
    const { groups, filteredRecordCount } = countByTimeBucket(db, {
      where,
      metric: metricSql(stream, query),
      granularity: query.groupByTime.granularity,
      zone: zone ?? "UTC",
      keysOnly: query.conditions.length === 0 ? stream.name : null,
    });
    return shapeGroups(groups, { query, filteredRecordCount });
  }
  const filteredRecordCount = (
    db.stmt(`SELECT count(*) AS n FROM records r WHERE ${where.sql}`).get(...where.params) as { n: number }
  ).n;
  const metric = metricSql(stream, query);
  if (!groupField) {
    const row = db
      .stmt(`SELECT ${metric.sql} AS value FROM records r WHERE ${where.sql}`)
      .get(...metric.params, ...where.params) as {
      value: Value;
    };
    return { value: row.value, filteredRecordCount };
  }
  let from = "records r";
  let key: SqlPart;
  const fromParams: SqlParam[] = [];
  if (query.groupByTime) {
    const expr = fieldExpr(stream, query.groupByTime.field);
    key = {
      sql: `pdpp_bucket(${expr.sql}, ?, ?)`,
      params: [...expr.params, query.groupByTime.granularity, zone ?? "UTC"],
    };
  } else if (fieldKind(stream, groupField) === "array") {
    from = "records r, json_each(r.payload, ?) AS g";
    fromParams.push(jsonPath(groupField));
    key = { sql: "g.value", params: [] };
  } else key = fieldExpr(stream, groupField);
  const sql = `SELECT ${key.sql} AS key, ${metric.sql} AS value, count(*) AS n FROM ${from} WHERE ${where.sql} GROUP BY 1`;
  const rows = db
    .stmt(sql)
    .all(...key.params, ...metric.params, ...fromParams, ...where.params) as GroupRow[];
  const boolean = fieldKind(stream, groupField) === "boolean";
  const groups = rows.map((r) => ({ key: keyString(r.key, boolean), value: r.value, n: r.n }));
  return shapeGroups(groups, { query, filteredRecordCount });
}

/** Order groups (time: most recent `limit` in ascending key order; else value desc, key asc). */
function shapeGroups(
  all: { key: string | null; value: Value; n: number }[],
  options: { query: AggregateQuery; filteredRecordCount: number },
): AggregateResult {
  const { query, filteredRecordCount } = options;
  let groups = all;
  if (query.groupByTime) {
    // Records without a time are in no bucket.
    groups = groups.filter((g) => g.key !== null).sort((a, b) => compareKeysAsc(b.key, a.key));
  } else groups.sort((a, b) => compareValuesDesc(a.value, b.value) || compareKeysAsc(a.key, b.key));
  let shown = groups.slice(0, query.limit);
  const otherCount = groups.slice(query.limit).reduce((sum, g) => sum + g.n, 0);
  if (query.groupByTime) shown = shown.reverse();
  return {
    groups: shown.map((g) => ({ key: g.key, value: g.value })),
    groupCount: groups.length,
    otherCount,
    filteredRecordCount,
  };
}
