// Record reads on Postgres: one record, counts per connection, and changes in version order.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { ChangesQuery, ChangesResult, StoredRecord } from "../store.js";
import { hydrateRecords, RECORD_FROM, type RecordRow, recordColumns } from "./record-rows.js";
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
  const { rows } = await pool.query<RecordRow>(
    `SELECT ${columns} FROM ${RECORD_FROM}
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

export async function countRecords(pool: pg.Pool, scope: StreamScope): Promise<Record<string, number>> {
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
    : await plainChangeRows(pool, scopes, query, { onlyUnstamped: false });
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

/** Rows after afterVersion in stored-version order (only never-updated rows when asked). */
async function plainChangeRows(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ChangesQuery,
  options: { onlyUnstamped: boolean },
): Promise<RecordRow[]> {
  const params = new Params();
  const { rows } = await pool.query<RecordRow>(
    `SELECT ${recordColumns(scopes, query.previewChars !== undefined)} FROM ${RECORD_FROM}
     WHERE ${scopesClause(params, scopes, { withTombstones: true })} AND r.version > ${params.add(query.afterVersion)}
       ${options.onlyUnstamped ? "AND r.stamps IS NULL" : ""}
     ORDER BY r.version LIMIT ${params.add(query.limit + 1)}`,
    params.values,
  );
  return rows;
}

/**
 * A changes page for scopes that project fields, in the order of the versions they observe
 * (core/stamps.ts). Rows never updated since their base observe their stored version and come
 * straight from the version index; updated rows (partial index records_stamped) have theirs
 * computed, and only those whose base is not past the first part's last row can compete. The
 * stored version is never below the observed one, so `version > after` prefilters both.
 */
async function projectedChangeRows(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ChangesQuery,
): Promise<RecordRow[]> {
  const want = query.limit + 1;
  const plain = await plainChangeRows(pool, scopes, query, { onlyUnstamped: true });
  const bound = plain.length === want ? plain[plain.length - 1].version : null;
  const params = new Params();
  const seen = seenVersionSql(params, scopes);
  const where = scopesClause(params, scopes, { withTombstones: true });
  const after = params.add(query.afterVersion);
  const { rows: stamped } = await pool.query<RecordRow & { seen: string }>(
    `SELECT * FROM (
       SELECT ${recordColumns(scopes, query.previewChars !== undefined)}, ${seen} AS seen FROM ${RECORD_FROM}
       WHERE ${where} AND r.stamps IS NOT NULL AND r.version > ${after}
         ${bound === null ? "" : `AND r.base_version <= ${params.add(bound)}`}
     ) s WHERE s.seen > ${after} ORDER BY s.seen LIMIT ${params.add(want)}`,
    params.values,
  );
  return [
    ...plain.map((row) => ({ row, seen: Number(row.version) })),
    ...stamped.map(({ seen: v, ...row }) => ({ row, seen: Number(v) })),
  ]
    .sort((a, b) => a.seen - b.seen)
    .slice(0, want)
    .map((x) => x.row);
}
