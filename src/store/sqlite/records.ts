// Record reads of the SQLite store: keyset-paginated lists, changes feed, counts and single records.
import type { StreamScope } from "../../core/grant.js";
import { chunkedFields } from "../../core/manifest.js";
import type {
  ChangesQuery,
  ChangesResult,
  ListPosition,
  ListQuery,
  ListResult,
  StoredRecord,
} from "../store.js";
import type { SqliteDb } from "./db.js";
import { materialize, type RecordRow, readPageTexts, recordColumns } from "./materialize.js";
import {
  bindValue,
  fieldExpr,
  normalizeScopes,
  requireGranted,
  type SqlParam,
  type SqlPart,
  scopeByConnection,
  scopesWhere,
} from "./scope-sql.js";
import { anyProjected, seenVersionSql } from "./seen-sql.js";

function rowScope(scopes: Map<string, StreamScope>, row: RecordRow): StreamScope {
  return scopes.get(`${row.connection_id}\u0000${row.stream}`) as StreamScope;
}

/** Keyset predicate: rows strictly after `after` in (sort, connection_id, record_id) order. */
function keysetSql(
  sortExpr: SqlPart,
  direction: "asc" | "desc",
  after: { value: SqlParam; position: ListPosition },
): SqlPart {
  const tie =
    direction === "asc"
      ? "(r.connection_id, r.record_id) > (?, ?)"
      : "(r.connection_id, r.record_id) < (?, ?)";
  const tieParams: SqlParam[] = [after.position.connectionId, after.position.recordId];
  const e = sortExpr.sql;
  const p = sortExpr.params;
  // Nulls sort lowest: first ascending, last descending.
  if (after.value === null) {
    return direction === "asc"
      ? { sql: `((${e}) IS NULL AND ${tie} OR (${e}) IS NOT NULL)`, params: [...p, ...tieParams, ...p] }
      : { sql: `((${e}) IS NULL AND ${tie})`, params: [...p, ...tieParams] };
  }
  return direction === "asc"
    ? {
        sql: `((${e}) > ? OR (${e}) = ? AND ${tie})`,
        params: [...p, after.value, ...p, after.value, ...tieParams],
      }
    : {
        sql: `((${e}) < ? OR (${e}) IS NULL OR (${e}) = ? AND ${tie})`,
        params: [...p, after.value, ...p, ...p, after.value, ...tieParams],
      };
}

export function listRecords(db: SqliteDb, scopes: StreamScope[], query: ListQuery): ListResult {
  const live = normalizeScopes(scopes);
  if (live.length === 0) return { records: [], hasMore: false, ...(query.countExact ? { count: 0 } : {}) };
  const stream = live[0].stream;
  for (const scope of live) requireGranted(scope, query.sort.field, "sort");
  const where = scopesWhere(live, query.conditions);
  const sortExpr = fieldExpr(stream, query.sort.field);
  const dir = query.sort.direction === "asc" ? "ASC" : "DESC";
  const parts = [where.sql];
  const params: SqlParam[] = [...where.params];
  if (query.after) {
    const value = bindValue(stream, query.sort.field, query.after.sortValue);
    const keyset = keysetSql(sortExpr, query.sort.direction, { value, position: query.after });
    parts.push(keyset.sql);
    params.push(...keyset.params);
  }
  const columns = recordColumns(live, query.previewChars !== undefined);
  const sql = `SELECT ${columns}, ${sortExpr.sql} AS sort_value FROM records r
    WHERE (${parts.join(") AND (")})
    ORDER BY sort_value ${dir}, r.connection_id ${dir}, r.record_id ${dir} LIMIT ?`;
  const rows = db.stmt(sql).all(...sortExpr.params, ...params, query.limit + 1) as RecordRow[];
  const byConnection = scopeByConnection(live);
  const page = rows.slice(0, query.limit);
  // The page's text fields in one statement (previews cut in SQL), not one read per record.
  const texts = live.some((scope) => chunkedFields(scope.stream).length > 0)
    ? readPageTexts(
        db,
        page.map((r) => r.id),
        { previewChars: query.previewChars },
      )
    : undefined;
  const records = page.map((row) =>
    materialize(db, row, {
      scope: rowScope(byConnection, row),
      fields: query.fields,
      previewChars: query.previewChars,
      texts: texts ? (texts.get(row.id) ?? []) : undefined,
    }),
  );
  const result: ListResult = { records, hasMore: rows.length > query.limit };
  if (query.countExact) {
    result.count = (
      db.stmt(`SELECT count(*) AS n FROM records r WHERE ${where.sql}`).get(...where.params) as { n: number }
    ).n;
  }
  return result;
}

export function listChanges(db: SqliteDb, scopes: StreamScope[], query: ChangesQuery): ChangesResult {
  const live = normalizeScopes(scopes);
  if (live.length === 0) return { records: [], hasMore: false, lastVersion: query.afterVersion };
  // Tombstones are included here (and only here); the time range still applies to them.
  const where = scopesWhere(live, [], { includeDeleted: true });
  const rows = anyProjected(live)
    ? projectedChangeRows(db, live, where, query)
    : (db
        .stmt(
          `SELECT ${recordColumns(live, query.previewChars !== undefined)} FROM records r
           WHERE (${where.sql}) AND r.version > ?
           ORDER BY r.version LIMIT ?`,
        )
        .all(...where.params, query.afterVersion, query.limit + 1) as RecordRow[]);
  const byConnection = scopeByConnection(live);
  const records: StoredRecord[] = rows.slice(0, query.limit).map((row) =>
    materialize(db, row, {
      scope: rowScope(byConnection, row),
      fields: query.fields,
      previewChars: query.previewChars,
    }),
  );
  return {
    records,
    hasMore: rows.length > query.limit,
    lastVersion: records.length ? records[records.length - 1].version : query.afterVersion,
  };
}

/**
 * A changes page for scopes that project fields, in the order of the versions they observe
 * (core/stamps.ts). A record's observed version is one of its events: its stored version (never
 * updated since its base), its base, or a version its stamps hold (stamp_events). So the page is
 * read window by window along the version axis: a window (lo, hi] holds the next `limit + 1`
 * events, its candidates are the rows with an event in it, and exactly those candidates whose
 * observed version lies in it are the rows the window contributes. Each window costs about a page
 * (CROSS JOIN keeps SQLite reading candidates by rowid, not scanning the stream's index).
 */
function projectedChangeRows(
  db: SqliteDb,
  live: StreamScope[],
  where: SqlPart,
  query: ChangesQuery,
): RecordRow[] {
  const want = query.limit + 1;
  const columns = recordColumns(live, query.previewChars !== undefined);
  const streams = [...new Set(live.map((s) => s.stream.name))];
  // One stream (the usual case) is an equality, so the indexes yield their rows in order.
  const inStreams = streams.length === 1 ? "= ?" : `IN (${streams.map(() => "?").join(", ")})`;
  // The next `want` events after lo. Updated rows' events come from small indexes; never-updated
  // rows from the version index, bounded by the want-th updated event when there is one (a stored
  // version of an updated row is one of its events, so the bounded scan skips at most `want` rows).
  const updatedEvents = db.stmt(
    `SELECT v FROM (
       SELECT * FROM (SELECT base_version AS v FROM records WHERE stream ${inStreams} AND stamps IS NOT NULL
                      AND base_version > ? ORDER BY base_version LIMIT ?)
       UNION ALL SELECT * FROM (SELECT version FROM stamp_events WHERE stream ${inStreams} AND version > ?
                      ORDER BY version LIMIT ?)
     ) ORDER BY v LIMIT ?`,
  );
  const plainEvents = db.stmt(
    `SELECT version AS v FROM records WHERE stream ${inStreams} AND stamps IS NULL AND version > ? AND version <= ?
     ORDER BY version LIMIT ?`,
  );
  const windowEnd = (lo: number): number | null => {
    const updated = (
      updatedEvents.all(...streams, lo, want, ...streams, lo, want, want) as { v: number }[]
    ).map((e) => e.v);
    const bound = updated.length === want ? updated[want - 1] : Number.MAX_SAFE_INTEGER;
    const plain = (plainEvents.all(...streams, lo, bound, want) as { v: number }[]).map((e) => e.v);
    const all = [...updated, ...plain].sort((a, b) => a - b).slice(0, want);
    return all.length === 0 ? null : all[all.length - 1];
  };
  const seen = seenVersionSql(live);
  const windowRows = db.stmt(
    `WITH c(id) AS (
       SELECT id FROM records WHERE stream ${inStreams} AND stamps IS NULL AND version > ? AND version <= ?
       UNION SELECT id FROM records WHERE stream ${inStreams} AND stamps IS NOT NULL AND base_version > ? AND base_version <= ?
       UNION SELECT record_row FROM stamp_events WHERE stream ${inStreams} AND version > ? AND version <= ?
     )
     SELECT * FROM (
       SELECT ${columns}, ${seen.sql} AS seen FROM c CROSS JOIN records r ON r.id = c.id WHERE (${where.sql})
     ) WHERE seen > ? AND seen <= ? ORDER BY seen`,
  );
  const found: RecordRow[] = [];
  let lo = query.afterVersion;
  while (found.length < want) {
    const hi = windowEnd(lo);
    if (hi === null) break;
    const rows = windowRows.all(
      ...[...streams, lo, hi, ...streams, lo, hi, ...streams, lo, hi],
      ...seen.params,
      ...where.params,
      lo,
      hi,
    ) as (RecordRow & { seen: number })[];
    for (const { seen: _, ...row } of rows) found.push(row as RecordRow);
    lo = hi;
  }
  return found.slice(0, want);
}

/** countRecords of each scope: the ones without a time range from one read of stream_counts. */
export function countRecordsMany(db: SqliteDb, scopes: StreamScope[]): Record<string, number>[] {
  const plain = scopes.filter((s) => !s.since && !s.until);
  const live = new Map<string, number>();
  if (plain.length > 0) {
    const connections = [...new Set(plain.flatMap((s) => s.connectionIds))];
    const rows = db
      .stmt(
        `SELECT connection_id AS id, stream, live AS n FROM stream_counts
         WHERE connection_id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(connections)) as { id: string; stream: string; n: number }[];
    for (const row of rows) live.set(`${row.id}\u0000${row.stream}`, row.n);
  }
  return scopes.map((scope) =>
    scope.since || scope.until
      ? countRecords(db, scope)
      : Object.fromEntries(
          scope.connectionIds.map((id) => [id, live.get(`${id}\u0000${scope.stream.name}`) ?? 0]),
        ),
  );
}

export function countRecords(db: SqliteDb, scope: StreamScope): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of scope.connectionIds) counts[id] = 0;
  const live = normalizeScopes([scope]);
  if (live.length === 0) return counts;
  if (!scope.since && !scope.until) {
    // Without a time range every live record is visible: ingest keeps their number (stream_counts).
    const rows = db
      .stmt(
        `SELECT connection_id AS id, live AS n FROM stream_counts
         WHERE stream = ? AND connection_id IN (SELECT value FROM json_each(?))`,
      )
      .all(scope.stream.name, JSON.stringify(scope.connectionIds)) as { id: string; n: number }[];
    for (const row of rows) counts[row.id] = row.n;
    return counts;
  }
  const where = scopesWhere(live, []);
  const rows = db
    .stmt(
      `SELECT r.connection_id AS id, count(*) AS n FROM records r WHERE ${where.sql} GROUP BY r.connection_id`,
    )
    .all(...where.params) as { id: string; n: number }[];
  for (const row of rows) counts[row.id] = row.n;
  return counts;
}

/** The visible row of one record (or undefined). */
export function findVisibleRow(
  db: SqliteDb,
  scope: StreamScope,
  ref: { connectionId: string; recordId: string },
  options: { projectBinary?: boolean } = {},
) {
  if (!scope.connectionIds.includes(ref.connectionId)) return undefined;
  const narrowed = { ...scope, connectionIds: [ref.connectionId] };
  const where = scopesWhere([narrowed], []);
  const columns = recordColumns([scope], options.projectBinary === true);
  return db
    .stmt(`SELECT ${columns} FROM records r WHERE ${where.sql} AND r.record_id = ?`)
    .get(...where.params, ref.recordId) as RecordRow | undefined;
}

export function getRecord(
  db: SqliteDb,
  scope: StreamScope,
  ref: { connectionId: string; recordId: string },
  options: { fields?: string[]; previewChars?: number } = {},
): StoredRecord | null {
  // A preview read (the MCP adapter's) leaves binary bytes in the store (issue 9 item 7).
  const row = findVisibleRow(db, scope, ref, { projectBinary: options.previewChars !== undefined });
  if (!row) return null;
  return materialize(db, row, { scope, fields: options.fields, previewChars: options.previewChars });
}
