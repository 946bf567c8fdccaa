// Fast group_by_time for counts over the time column: SQL groups rows by a UTC prefix of the
// normalised time (no JS call per row) and JS maps each prefix group to its local bucket. A group
// whose UTC span straddles a bucket boundary (a non-UTC zone with a sub-hour offset, or an offset
// change inside the hour) is counted again per row with the exact bucket function.
import { bucketKey, zoneOffsetMs } from "../../core/time-buckets.js";
import type { TimeGranularity } from "../store.js";
import { countPrefixRanges } from "./aggregate-ranges.js";
import type { SqliteDb } from "./db.js";
import type { SqlPart } from "./scope-sql.js";

// Normalised times are always "YYYY-MM-DDTHH:MM:SS.sssZ" (core/time.ts bounds years to 0000–9999),
// so a fixed-length prefix is a UTC minute, hour, day, month or year.
const FIRST = "0000-01-01T00:00:00.000Z";
const UTC_PREFIX: Record<TimeGranularity, number> = {
  minute: 16,
  hour: 13,
  day: 10,
  week: 10,
  month: 7,
  quarter: 7,
  year: 4,
};

export interface TimeGroup {
  key: string | null;
  value: number;
  n: number;
}

/** The bucket of every instant of a prefix group, or null when the group straddles buckets. */
function groupBucket(prefix: string, options: { granularity: TimeGranularity; zone: string }) {
  const start = prefix + FIRST.slice(prefix.length);
  const { granularity, zone } = options;
  if (zone === "UTC") return bucketKey(start, granularity, zone);
  // Non-UTC groups are hours (or minutes): clean when the offset is constant over the span and
  // both ends fall in one bucket (local time is then monotone and continuous across the span).
  const startMs = Date.parse(start);
  const endMs = startMs + (prefix.length === 13 ? 3_600_000 : 60_000) - 1;
  if (zoneOffsetMs(zone, startMs) !== zoneOffsetMs(zone, endMs)) return null;
  const end = new Date(endMs).toISOString();
  const key = bucketKey(start, granularity, zone);
  return key === bucketKey(end, granularity, zone) ? key : null;
}

/**
 * Groups of `count(<metric>)` by time bucket of `r.time` over the rows `where` selects, plus the
 * number of rows selected (every row falls in exactly one prefix group, null times included).
 */
export function countByTimeBucket(
  db: SqliteDb,
  query: {
    where: SqlPart;
    metric: SqlPart;
    granularity: TimeGranularity;
    zone: string;
    /**
     * The stream every scope reads when `where` reads only stream, connection, deleted and time
     * (no payload condition), else null.
     */
    keysOnly: string | null;
  },
): { groups: TimeGroup[]; filteredRecordCount: number } {
  const { metric, granularity, zone } = query;
  // Live rows of a stream by time are the partial index records_stream_time, which also holds the
  // connection. The bundled SQLite picks it on its own; the system sqlite3 (3.40) picked
  // records_connection_time and read every records row for `deleted` (5.5 s cold at 1M), so the
  // index is named. Top-level stream and `deleted = 0` terms let it serve an OR of scopes, in
  // time order (the prefix ranges below need that order).
  const from = query.keysOnly ? "records r INDEXED BY records_stream_time" : "records r";
  const where: SqlPart = query.keysOnly
    ? {
        sql: `r.stream = ? AND r.deleted = 0 AND (${query.where.sql})`,
        params: [query.keysOnly, ...query.where.params],
      }
    : query.where;
  const length = zone === "UTC" ? UTC_PREFIX[granularity] : granularity === "minute" ? 16 : 13;
  // count(*) over day-or-coarser UTC prefixes: one index range per prefix (aggregate-ranges.ts).
  const ranges =
    query.keysOnly && metric.sql === "count(*)" && length <= 10
      ? countPrefixRanges(db, { where, length })
      : null;
  const rows =
    ranges?.map((r) => ({ ...r, value: r.n })) ??
    (db
      .stmt(
        `SELECT substr(r.time, 1, ${length}) AS prefix, ${metric.sql} AS value, count(*) AS n
       FROM ${from} WHERE ${where.sql} GROUP BY 1`,
      )
      .all(...metric.params, ...where.params) as { prefix: string | null; value: number; n: number }[]);
  const buckets = new Map<string | null, TimeGroup>();
  const add = (key: string | null, value: number, n: number) => {
    const group = buckets.get(key);
    if (group) {
      group.value += value;
      group.n += n;
    } else buckets.set(key, { key, value, n });
  };
  let filteredRecordCount = 0;
  const straddling: string[] = [];
  for (const row of rows) {
    filteredRecordCount += row.n;
    if (row.prefix === null) continue; // records without a time are in no bucket
    const key = groupBucket(row.prefix, { granularity, zone });
    if (key === null) straddling.push(row.prefix);
    else add(key, row.value, row.n);
  }
  if (straddling.length > 0) {
    const exact = db
      .stmt(
        `SELECT pdpp_bucket(r.time, ?, ?) AS key, ${metric.sql} AS value, count(*) AS n
         FROM ${from} WHERE (${where.sql})
           AND substr(r.time, 1, ${length}) IN (SELECT value FROM json_each(?)) GROUP BY 1`,
      )
      .all(granularity, zone, ...metric.params, ...where.params, JSON.stringify(straddling)) as TimeGroup[];
    for (const row of exact) if (row.key !== null) add(row.key, row.value, row.n);
  }
  return { groups: [...buckets.values()], filteredRecordCount };
}
