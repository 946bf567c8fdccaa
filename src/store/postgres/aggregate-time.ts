// group_by_time over the normalised `time` column without a per-row time zone conversion: rows are
// grouped by their UTC day (or hour, for day and finer) prefix first; a prefix whose first and last
// instant fall in one local bucket goes there whole, and only straddling prefixes and odd-shaped
// times are bucketed row by row. Keys stay identical to core/time-buckets.ts bucketKey.
import type pg from "pg";
import type { AggregateQuery } from "../store.js";
import type { Params } from "./sql-scope.js";

/** Metrics whose per-hour partial values combine exactly (count_distinct does not). */
export function combinable(metric: AggregateQuery["metric"]): boolean {
  return metric !== "count_distinct";
}

const COMBINE: Record<string, string> = { count: "sum", sum: "sum", min: "min", max: "max" };

// A normalised time is 24 characters ("2024-01-02T03:04:05.678Z"); anything else (extended years)
// is bucketed row by row.
const prefixOf = (chars: number) =>
  `CASE WHEN length(r.time) = 24 AND substr(r.time, 5, 1) = '-' THEN left(r.time, ${chars}) END`;

/** Day granularity and finer straddle UTC days in most zones: those group by UTC hour instead. */
const BY_HOUR = new Set(["minute", "hour", "day"]);

export async function aggregateByHour(
  pool: pg.Pool,
  params: Params,
  query: {
    visible: string;
    metric: { sql: string; kind: "number" | "text"; name: AggregateQuery["metric"] };
    zone: string;
    format: string;
    granularity: string;
    limit: number;
  },
): Promise<{
  rows: { key: string; value: unknown; n: string; groups: string; members: string }[];
  /** Records the scope and conditions let through; null when no group exists (count apart). */
  filtered: number | null;
}> {
  const z = params.add(query.zone);
  const f = params.add(query.format);
  const combine = COMBINE[query.metric.name];
  const hourly = BY_HOUR.has(query.granularity);
  const HOUR = prefixOf(hourly ? 13 : 10);
  const [first, last] = hourly ? [":00:00Z", ":59:59.999Z"] : ["T00:00:00Z", "T23:59:59.999Z"];
  const bucket = (t: string) => `to_char((${t})::timestamptz AT TIME ZONE ${z}, ${f})`;
  const sql = `
    WITH h AS MATERIALIZED (
      SELECT ${HOUR} AS hr, r.time IS NULL AS no_time, count(*) AS n, ${query.metric.sql} AS v
      FROM records r WHERE ${query.visible} GROUP BY 1, 2
    ),
    b AS MATERIALIZED (
      SELECT hr, n, v, ${bucket(`hr || '${first}'`)} AS k1, ${bucket(`hr || '${last}'`)} AS k2
      FROM h WHERE hr IS NOT NULL
    ),
    per_row AS (
      SELECT ${bucket("r.time")} AS key, count(*) AS n, ${query.metric.sql} AS v
      FROM b JOIN records r ON r.time >= b.hr AND r.time < b.hr || '~'
      WHERE b.k1 <> b.k2 AND ${query.visible} GROUP BY 1
      UNION ALL
      SELECT ${bucket("r.time")} AS key, count(*) AS n, ${query.metric.sql} AS v
      FROM records r
      WHERE EXISTS (SELECT 1 FROM h WHERE hr IS NULL AND NOT no_time)
        AND ${query.visible} AND r.time IS NOT NULL AND ${HOUR} IS NULL GROUP BY 1
    ),
    all_rows AS (SELECT k1 AS key, n, v FROM b WHERE k1 = k2 UNION ALL SELECT key, n, v FROM per_row),
    grouped AS (SELECT key, sum(n) AS n, ${combine}(v) AS value FROM all_rows GROUP BY key)
    SELECT key, value, n, count(*) OVER () AS groups, sum(n) OVER () AS members,
           (SELECT coalesce(sum(n), 0) FROM h) AS filtered
    FROM grouped ORDER BY key COLLATE "C" DESC LIMIT ${params.add(query.limit)}`;
  const { rows } = await pool.query<{
    key: string;
    value: unknown;
    n: string;
    groups: string;
    members: string;
    filtered: string;
  }>(sql, params.values);
  return { rows, filtered: rows.length > 0 ? Number(rows[0].filtered) : null };
}
