// Record reads of the SQLite store: keyset-paginated lists, changes feed, counts and single records.
import type { StreamScope } from "../../core/grant.js";
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
  const texts = stream.text_fields?.length
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
 * (core/stamps.ts). Rows never updated since their base observe their stored version and come
 * straight from the version index; updated rows (the partial index records_stream_stamped) have
 * theirs computed, and only those whose base is not past the first part's last row can compete.
 * The stored version is never below the observed one, so `version > after` prefilters both.
 */
function projectedChangeRows(
  db: SqliteDb,
  live: StreamScope[],
  where: SqlPart,
  query: ChangesQuery,
): RecordRow[] {
  const want = query.limit + 1;
  const columns = recordColumns(live, query.previewChars !== undefined);
  const plain = db
    .stmt(
      `SELECT ${columns}, r.version AS seen FROM records r
       WHERE (${where.sql}) AND r.stamps IS NULL AND r.version > ?
       ORDER BY r.version LIMIT ?`,
    )
    .all(...where.params, query.afterVersion, want) as (RecordRow & { seen: number })[];
  const bound = plain.length === want ? plain[plain.length - 1].seen : null;
  const seen = seenVersionSql(live);
  const stamped = db
    .stmt(
      `SELECT * FROM (
         SELECT ${columns}, ${seen.sql} AS seen FROM records r
         WHERE (${where.sql}) AND r.stamps IS NOT NULL AND r.version > ?${bound === null ? "" : " AND r.base_version <= ?"}
       ) WHERE seen > ? ORDER BY seen LIMIT ?`,
    )
    .all(
      ...seen.params,
      ...where.params,
      query.afterVersion,
      ...(bound === null ? [] : [bound]),
      query.afterVersion,
      want,
    ) as (RecordRow & { seen: number })[];
  return [...plain, ...stamped]
    .sort((a, b) => a.seen - b.seen)
    .slice(0, want)
    .map(({ seen: _, ...row }) => row);
}

export function countRecords(db: SqliteDb, scope: StreamScope): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of scope.connectionIds) counts[id] = 0;
  const live = normalizeScopes([scope]);
  if (live.length === 0) return counts;
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
