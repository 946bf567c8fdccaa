// Translates grant scopes, field conditions and sorts into parameterised SQL over `records r`.
// Field paths only ever reach SQL as bound JSON-path parameters, never as SQL text.

import { PdppError } from "../../core/errors.js";
import { type StreamScope, scopeGrantsPath } from "../../core/grant.js";
import { isFieldPath } from "../../core/ids.js";
import { fieldSchemaAt, isTimeLike, type StreamDef } from "../../core/manifest.js";
import { normalizeTime } from "../../core/time.js";
import type { FieldCondition } from "../store.js";

export type SqlParam = string | number | null;

export interface SqlPart {
  sql: string;
  params: SqlParam[];
}

/** `$."a"."b"` for a validated dotted path. */
export function jsonPath(path: string): string {
  if (!isFieldPath(path))
    throw new PdppError("invalid_filter", `${JSON.stringify(path)} is not a field path.`);
  return `$${path
    .split(".")
    .map((s) => `."${s}"`)
    .join("")}`;
}

/** Refuse any use of a field the scope does not grant (the RS checks first; this is the backstop). */
export function requireGranted(scope: StreamScope, path: string, param = "field"): void {
  if (!scopeGrantsPath(scope, path)) {
    throw new PdppError("field_not_granted", `field ${path} is not granted.`, { param });
  }
}

export type FieldKind = "time_column" | "time_like" | "array" | "boolean" | "plain";

export function fieldKind(stream: StreamDef, path: string): FieldKind {
  if (path === stream.time_field) return "time_column";
  const schema = fieldSchemaAt(stream, path);
  if (isTimeLike(schema)) return "time_like";
  if (schema?.type === "array") return "array";
  if (schema?.type === "boolean") return "boolean";
  return "plain";
}

/** SQL expression for a field's comparable value (normalised time for time-like fields). */
export function fieldExpr(stream: StreamDef, path: string): SqlPart {
  const kind = fieldKind(stream, path);
  if (kind === "time_column") return { sql: "r.time", params: [] };
  if (kind === "time_like") return { sql: "pdpp_time(json_extract(r.payload, ?))", params: [jsonPath(path)] };
  return { sql: "json_extract(r.payload, ?)", params: [jsonPath(path)] };
}

/** Bind form of a condition/keyset value for a field. */
export function bindValue(
  stream: StreamDef,
  path: string,
  value: string | number | boolean | null,
): SqlParam {
  if (value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  const kind = fieldKind(stream, path);
  if (kind === "time_column" || kind === "time_like") return normalizeTime(value);
  return value;
}

const OPS: Record<FieldCondition["op"], string> = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" };

export function conditionSql(stream: StreamDef, condition: FieldCondition): SqlPart {
  const value = bindValue(stream, condition.field, condition.value);
  if (fieldKind(stream, condition.field) === "array") {
    // An array matches when any element satisfies the comparison (eq: contains).
    return {
      sql: `EXISTS (SELECT 1 FROM json_each(r.payload, ?) WHERE value ${OPS[condition.op]} ?)`,
      params: [jsonPath(condition.field), value],
    };
  }
  const expr = fieldExpr(stream, condition.field);
  return { sql: `${expr.sql} ${OPS[condition.op]} ?`, params: [...expr.params, value] };
}

/** Visibility of one scope: its connections and stream, live rows, its time range, plus conditions. */
export function scopeWhere(
  scope: StreamScope,
  conditions: FieldCondition[],
  options: { includeDeleted?: boolean } = {},
): SqlPart {
  if (scope.connectionIds.length === 0) return { sql: "0", params: [] };
  const parts = [`r.stream = ?`, `r.connection_id IN (${scope.connectionIds.map(() => "?").join(", ")})`];
  if (!options.includeDeleted) parts.push("r.deleted = 0");
  const params: SqlParam[] = [scope.stream.name, ...scope.connectionIds];
  if (scope.since) {
    parts.push("r.time >= ?");
    params.push(normalizeTime(scope.since));
  }
  if (scope.until) {
    parts.push("r.time < ?");
    params.push(normalizeTime(scope.until));
  }
  for (const condition of conditions) {
    requireGranted(scope, condition.field, `filter[${condition.field}]`);
    const part = conditionSql(scope.stream, condition);
    parts.push(part.sql);
    params.push(...part.params);
  }
  return { sql: parts.join(" AND "), params };
}

/** OR of several scopes' visibility (each with the same conditions). */
export function scopesWhere(
  scopes: StreamScope[],
  conditions: FieldCondition[],
  options: { includeDeleted?: boolean } = {},
): SqlPart {
  if (scopes.length === 0) return { sql: "0", params: [] };
  const parts = scopes.map((s) => scopeWhere(s, conditions, options));
  if (parts.length === 1) return parts[0];
  return { sql: parts.map((p) => `(${p.sql})`).join(" OR "), params: parts.flatMap((p) => p.params) };
}

/** The scope a row belongs to (connections never overlap between scopes of different connectors). */
export function scopeByConnection(scopes: StreamScope[]): Map<string, StreamScope> {
  const map = new Map<string, StreamScope>();
  for (const scope of scopes)
    for (const id of scope.connectionIds) map.set(`${id}\u0000${scope.stream.name}`, scope);
  return map;
}

/** Scopes that can see anything (an empty connection list sees nothing). */
export function normalizeScopes(scopes: StreamScope[]): StreamScope[] {
  return scopes.filter((s) => s.connectionIds.length > 0);
}
