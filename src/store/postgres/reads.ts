// Record reads on Postgres: one record, counts per connection, and changes in version order.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { ChangesQuery, ChangesResult, StoredRecord } from "../store.js";
import {
  candidateTextPaths,
  hydrateRecords,
  inlineTextsSql,
  RECORD_FROM,
  type RecordRow,
  recordColumns,
} from "./record-rows.js";
import { anyProjected, seenVersionSql } from "./seen-sql.js";
import { Params, scopeClause, scopesClause } from "./sql-scope.js";

/** The scope a row belongs to (same stream name and one of its connections). */
export function scopeFinder(
  scopes: StreamScope[],
): (row: { stream: string; connection_id: string }) => StreamScope {
  return (row) => {
    const found = scopes.find(
      (s) => s.stream.name === row.stream && s.connectionIds.includes(row.connection_id),
    );
    if (!found) throw new Error(`row ${row.stream}/${row.connection_id} matched no scope`);
    return found;
  };
}

export async function getRecord(
  pool: pg.Pool,
  scope: StreamScope,
  ref: { connectionId: string; recordId: string; fields?: string[]; previewChars?: number },
): Promise<StoredRecord | null> {
  if (!scope.connectionIds.includes(ref.connectionId)) return null;
  const params = new Params();
  // A preview read (the MCP adapter's) leaves binary bytes in the store (issue 9 item 7).
  const columns = recordColumns([scope], ref.previewChars !== undefined);
  // Its text fields come in the same statement (one round trip; record-rows.ts inlineTextsSql).
  const texts = inlineTextsSql(params, candidateTextPaths([scope], ref.fields), ref.previewChars);
  const { rows } = await pool.query<RecordRow>(
    `SELECT ${columns}, ${texts} AS texts FROM ${RECORD_FROM}
     WHERE ${scopeClause(params, scope)} AND r.connection_id = ${params.add(ref.connectionId)}
       AND r.record_id = ${params.add(ref.recordId)}`,
    params.values,
  );
  if (rows.length === 0) return null;
  const [record] = await hydrateRecords(pool, rows, {
    scopeOf: () => scope,
    fields: ref.fields,
    previewChars: ref.previewChars,
  });
  return record;
}

/** countRecords of each scope: the ones without a time range from one read of stream_counts. */
export async function countRecordsMany(
  pool: pg.Pool,
  scopes: StreamScope[],
): Promise<Record<string, number>[]> {
  const plain = scopes.filter((s) => !s.since && !s.until);
  const live = new Map<string, number>();
  if (plain.length > 0) {
    const { rows } = await pool.query<{ connection_id: string; stream: string; live: string }>(
      "SELECT connection_id, stream, live FROM stream_counts WHERE connection_id = ANY($1::text[])",
      [[...new Set(plain.flatMap((s) => s.connectionIds))]],
    );
    for (const row of rows) live.set(`${row.connection_id}\u0000${row.stream}`, Number(row.live));
  }
  const out: Record<string, number>[] = [];
  for (const scope of scopes) {
    out.push(
      scope.since || scope.until
        ? await countRecords(pool, scope)
        : Object.fromEntries(
            scope.connectionIds.map((id) => [id, live.get(`${id}\u0000${scope.stream.name}`) ?? 0]),
          ),
    );
  }
  return out;
}

export async function countRecords(pool: pg.Pool, scope: StreamScope): Promise<Record<string, number>> {
  if (!scope.since && !scope.until && scope.connectionIds.length > 0) {
    // Without a time range every live record is visible: ingest keeps their number (stream_counts).
    const { rows } = await pool.query<{ connection_id: string; live: string }>(
      "SELECT connection_id, live FROM stream_counts WHERE stream = $1 AND connection_id = ANY($2::text[])",
      [scope.stream.name, scope.connectionIds],
    );
    const counts: Record<string, number> = {};
    for (const id of scope.connectionIds) counts[id] = 0;
    for (const row of rows) counts[row.connection_id] = Number(row.live);
    return counts;
  }
  const params = new Params();
  const { rows } = await pool.query<{ connection_id: string; n: string }>(
    `SELECT r.connection_id, count(*) AS n FROM records r WHERE ${scopeClause(params, scope)}
     GROUP BY r.connection_id`,
    params.values,
  );
  const counts: Record<string, number> = {};
  for (const id of scope.connectionIds) counts[id] = 0;
  if (scope.connectionIds.length === 0) return counts;
  for (const row of rows) counts[row.connection_id] = Number(row.n);
  return counts;
}

export async function listChanges(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ChangesQuery,
): Promise<ChangesResult> {
  const rows = anyProjected(scopes)
    ? await projectedChangeRows(pool, scopes, query)
    : await plainChangeRows(pool, scopes, query);
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const records = await hydrateRecords(pool, page, {
    scopeOf: scopeFinder(scopes),
    fields: query.fields,
    previewChars: query.previewChars,
  });
  const lastVersion = records.length > 0 ? records[records.length - 1].version : query.afterVersion;
  return { records, hasMore, lastVersion };
}

/** Rows after afterVersion in stored-version order (what a fields:"all" scope observes). */
async function plainChangeRows(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ChangesQuery,
): Promise<RecordRow[]> {
  const params = new Params();
  const { rows } = await pool.query<RecordRow>(
    `SELECT ${recordColumns(scopes, query.previewChars !== undefined)} FROM ${RECORD_FROM}
     WHERE ${scopesClause(params, scopes, { withTombstones: true })} AND r.version > ${params.add(query.afterVersion)}
     ORDER BY r.version LIMIT ${params.add(query.limit + 1)}`,
    params.values,
  );
  return rows;
}

/**
 * A changes page for scopes that project fields, in the order of the versions they observe
 * (core/stamps.ts). A record's observed version is one of its events: its stored version (never
 * updated since its base), its base, or a version its stamps hold (stamp_events). So the page is
 * read window by window along the version axis: a window (lo, hi] holds the next `limit + 1`
 * events, its candidates are the rows with an event in it, and exactly those candidates whose
 * observed version lies in it are the rows the window contributes. Each window costs about a page.
 */
async function projectedChangeRows(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ChangesQuery,
): Promise<RecordRow[]> {
  const want = query.limit + 1;
  const streams = [...new Set(scopes.map((s) => s.stream.name))];
  const found: RecordRow[] = [];
  let lo = query.afterVersion;
  while (found.length < want) {
    const hi = await windowEnd(pool, { streams, lo, want });
    if (hi === null) break;
    const params = new Params();
    const s = params.add(streams);
    const a = params.add(lo);
    const b = params.add(hi);
    const seen = seenVersionSql(params, scopes);
    const where = scopesClause(params, scopes, { withTombstones: true });
    const { rows } = await pool.query<RecordRow & { seen: string }>(
      `WITH cand AS (
         SELECT rid FROM records WHERE stream = ANY(${s}::text[]) AND stamps IS NULL AND version > ${a} AND version <= ${b}
         UNION SELECT rid FROM records WHERE stream = ANY(${s}::text[]) AND stamps IS NOT NULL
           AND base_version > ${a} AND base_version <= ${b}
         UNION SELECT rid FROM stamp_events WHERE stream = ANY(${s}::text[]) AND version > ${a} AND version <= ${b}
       )
       SELECT * FROM (
         SELECT ${recordColumns(scopes, query.previewChars !== undefined)}, ${seen} AS seen
         FROM cand JOIN ${RECORD_FROM} ON r.rid = cand.rid WHERE ${where}
       ) x WHERE x.seen > ${a} AND x.seen <= ${b} ORDER BY x.seen`,
      params.values,
    );
    for (const { seen: _, ...row } of rows) found.push(row as RecordRow);
    lo = hi;
  }
  return found.slice(0, want);
}

/**
 * The end of the window after `lo` holding the next `want` events. Updated rows' events come from
 * small indexes; never-updated rows from the version index, bounded by the want-th updated event
 * when there is one (an updated row's stored version is one of its events, so the bounded scan
 * skips at most `want` rows).
 */
async function windowEnd(
  pool: pg.Pool,
  options: { streams: string[]; lo: number; want: number },
): Promise<number | null> {
  const { streams, lo, want } = options;
  // One stream (the usual case) is an equality, so the indexes yield their rows in order.
  const inStreams = streams.length === 1 ? "stream = $1" : "stream = ANY($1::text[])";
  const streamParam = streams.length === 1 ? streams[0] : streams;
  const { rows: updated } = await pool.query<{ v: string }>(
    `SELECT v FROM (
       (SELECT base_version AS v FROM records WHERE ${inStreams} AND stamps IS NOT NULL
        AND base_version > $2 ORDER BY base_version LIMIT $3)
       UNION ALL (SELECT version FROM stamp_events WHERE ${inStreams} AND version > $2
        ORDER BY version LIMIT $3)
     ) e ORDER BY v LIMIT $3`,
    [streamParam, lo, want],
  );
  const events = updated.map((e) => Number(e.v));
  const bound = events.length === want ? events[want - 1] : null;
  const { rows: plain } = await pool.query<{ v: string }>(
    `SELECT version AS v FROM records WHERE ${inStreams} AND stamps IS NULL AND version > $2
       ${bound === null ? "" : "AND version <= $4"}
     ORDER BY version LIMIT $3`,
    bound === null ? [streamParam, lo, want] : [streamParam, lo, want, bound],
  );
  const all = [...events, ...plain.map((e) => Number(e.v))].sort((a, b) => a - b).slice(0, want);
  return all.length === 0 ? null : all[all.length - 1];
}
