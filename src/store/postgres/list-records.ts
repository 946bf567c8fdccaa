// listRecords on Postgres: typed sort expression, nulls lowest, keyset on (sort value, connection,
// record id) in the sort's direction, byte order throughout (COLLATE "C").
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import { normalizeTime } from "../../core/time.js";
import type { ListPosition, ListQuery, ListResult, SortSpec } from "../store.js";
import { scopeFinder } from "./reads.js";
import {
  candidateTextPaths,
  hydrateRecords,
  inlineTextsSql,
  RECORD_FROM,
  type RecordRow,
  recordColumns,
} from "./record-rows.js";
import { fieldKind, Params, payloadPath, requireGranted, scopesClause, timeLikeExpr } from "./sql-scope.js";

type SortKind = "time" | "number" | "boolean" | "string";

/** The SQL expression a sort orders by, typed by the field's declared type (others are NULL). */
export function sortExpression(
  params: Params,
  scope: StreamScope,
  field: string,
): { sql: string; kind: SortKind } {
  if (field === scope.stream.time_field) return { sql: "r.time", kind: "time" };
  if (fieldKind(scope.stream, field) === "time_like")
    return { sql: `(${timeLikeExpr(params, field)})`, kind: "time" };
  const p = payloadPath(params, field);
  const type = fieldSchemaAt(scope.stream, field)?.type;
  if (type === "number" || type === "integer") {
    return { sql: `(CASE WHEN jsonb_typeof(${p}) = 'number' THEN (${p})::numeric END)`, kind: "number" };
  }
  if (type === "boolean") {
    return { sql: `(CASE WHEN jsonb_typeof(${p}) = 'boolean' THEN (${p})::boolean END)`, kind: "boolean" };
  }
  return {
    sql: `(CASE WHEN jsonb_typeof(${p}) = 'string' THEN ${p} #>> '{}' END) COLLATE "C"`,
    kind: "string",
  };
}

function typedParam(params: Params, kind: SortKind, value: ListPosition["sortValue"]): string {
  if (kind === "number") return `${params.add(value)}::numeric`;
  if (kind === "boolean") return `${params.add(value)}::boolean`;
  if (kind === "time") return `${params.add(value === null ? null : normalizeTime(value))}::text COLLATE "C"`;
  return `${params.add(value === null ? null : String(value))}::text COLLATE "C"`;
}

/** Rows strictly after `after` in the order (sort, connection_id, record_id), nulls lowest. */
function keysetClause(
  params: Params,
  sort: { sql: string; kind: SortKind; direction: SortSpec["direction"] },
  after: ListPosition,
): string {
  const s = sort.sql;
  const asc = sort.direction === "asc";
  const tie = `(r.connection_id, r.record_id) ${asc ? ">" : "<"} (${params.add(after.connectionId)}::text COLLATE "C", ${params.add(after.recordId)}::text COLLATE "C")`;
  if (after.sortValue === null) {
    return asc ? `(${s} IS NOT NULL OR (${s} IS NULL AND ${tie}))` : `(${s} IS NULL AND ${tie})`;
  }
  const v = typedParam(params, sort.kind, after.sortValue);
  return asc
    ? `(${s} > ${v} OR (${s} = ${v} AND ${tie}))`
    : `(${s} < ${v} OR ${s} IS NULL OR (${s} = ${v} AND ${tie}))`;
}

function sortValueOut(kind: SortKind, value: unknown): ListPosition["sortValue"] {
  if (value === null || value === undefined) return null;
  if (kind === "number") return Number(value);
  if (kind === "boolean") return Boolean(value);
  return String(value);
}

export async function listRecords(
  pool: pg.Pool,
  scopes: StreamScope[],
  query: ListQuery,
): Promise<ListResult> {
  scopes = scopes.filter((s) => s.connectionIds.length > 0);
  if (scopes.length === 0) return { records: [], hasMore: false, ...(query.countExact ? { count: 0 } : {}) };
  for (const scope of scopes) requireGranted(scope, query.sort.field, "sort");
  const params = new Params();
  const visible = scopesClause(params, scopes, { conditions: query.conditions });
  const countParams = [...params.values];
  const sort = { ...sortExpression(params, scopes[0], query.sort.field), direction: query.sort.direction };
  const dir = sort.direction === "asc" ? "ASC NULLS FIRST" : "DESC NULLS LAST";
  const tieDir = sort.direction === "asc" ? "ASC" : "DESC";
  const keyset = query.after ? `AND ${keysetClause(params, sort, query.after)}` : "";
  const { rows } = await pool.query<RecordRow & { sort_value: unknown }>(
    `SELECT ${recordColumns(scopes, query.previewChars !== undefined)}, ${sort.sql} AS sort_value,
       ${inlineTextsSql(params, candidateTextPaths(scopes, query.fields), query.previewChars)} AS texts FROM ${RECORD_FROM}
     WHERE ${visible} ${keyset}
     ORDER BY ${sort.sql} ${dir}, r.connection_id ${tieDir}, r.record_id ${tieDir}
     LIMIT ${params.add(query.limit + 1)}`,
    params.values,
  );
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const records = await hydrateRecords(pool, page, {
    scopeOf: scopeFinder(scopes),
    fields: query.fields,
    previewChars: query.previewChars,
  });
  page.forEach((row, i) => {
    records[i].sortValue = sortValueOut(sort.kind, row.sort_value);
  });
  const result: ListResult = { records, hasMore };
  if (query.countExact) {
    const { rows: counted } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM records r WHERE ${visible}`,
      countParams,
    );
    result.count = Number(counted[0].n);
  }
  return result;
}
