// SQL fragments shared by every Postgres read: parameters, the grant scope (connections, stream,
// time range, no tombstones) and typed payload conditions — enforced in SQL, never after the fact.
// Semantics mirror sqlite/scope-sql.ts: time-like fields compare as normalised ISO strings, array
// fields match when any element satisfies the comparison, strings compare in byte order.
import { PdppError } from "../../core/errors.js";
import { type StreamScope, scopeGrantsPath } from "../../core/grant.js";
import { isFieldPath } from "../../core/ids.js";
import { fieldSchemaAt, isTimeLike, type StreamDef } from "../../core/manifest.js";
import { normalizeTime } from "../../core/time.js";
import type { FieldCondition } from "../store.js";

/** Collects positional parameters; `add` returns the placeholder to splice into SQL. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Refuse any use of a field the scope does not grant (the RS checks first; this is the backstop). */
export function requireGranted(scope: StreamScope, path: string, param = "field"): void {
  if (!scopeGrantsPath(scope, path)) {
    throw new PdppError("field_not_granted", `field ${path} is not granted.`, { param });
  }
}

/** The jsonb at a dotted payload path (`#>` with a text[] parameter, so paths never become SQL). */
export function payloadPath(params: Params, path: string, alias = "r"): string {
  if (!isFieldPath(path))
    throw new PdppError("invalid_filter", `${JSON.stringify(path)} is not a field path.`);
  return `(${alias}.payload #> ${params.add(path.split("."))}::text[])`;
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

/** Normalised ISO time of a time-like payload field (NULL when absent or not a time). */
export function timeLikeExpr(params: Params, path: string): string {
  return `pdpp_time(${payloadPath(params, path)} #>> '{}') COLLATE "C"`;
}

/** Visibility of records under one scope: its stream, its connections, its time range. */
export function scopeClause(
  params: Params,
  scope: StreamScope,
  options: { alias?: string; withTombstones?: boolean } = {},
): string {
  const alias = options.alias ?? "r";
  const parts = [
    `${alias}.stream = ${params.add(scope.stream.name)}`,
    `${alias}.connection_id = ANY(${params.add(scope.connectionIds)}::text[])`,
  ];
  if (!options.withTombstones) parts.push(`NOT ${alias}.deleted`);
  // A bounded scope hides records without a time: they cannot be shown to lie inside the range.
  if (scope.since) parts.push(`${alias}.time >= ${params.add(normalizeTime(scope.since))}`);
  if (scope.until) parts.push(`${alias}.time < ${params.add(normalizeTime(scope.until))}`);
  return `(${parts.join(" AND ")})`;
}

/** Visibility under any of several scopes, each with the same conditions. */
export function scopesClause(
  params: Params,
  scopes: StreamScope[],
  options: { withTombstones?: boolean; conditions?: FieldCondition[] } = {},
): string {
  const live = scopes.filter((s) => s.connectionIds.length > 0);
  if (live.length === 0) return "FALSE";
  const each = live.map((s) => {
    const visible = scopeClause(params, s, { withTombstones: options.withTombstones });
    const conditions = options.conditions?.length
      ? ` AND ${conditionsClause(params, s, options.conditions)}`
      : "";
    return `(${visible}${conditions})`;
  });
  return `(${each.join(" OR ")})`;
}

const OPS = { eq: "=", gte: ">=", gt: ">", lte: "<=", lt: "<" } as const;

/** Compare a jsonb value with a bound scalar, only when the JSON type matches the value's type. */
function typedCompare(
  params: Params,
  jsonb: string,
  condition: { op: FieldCondition["op"]; value: unknown },
): string {
  const op = OPS[condition.op];
  const { value } = condition;
  // CASE, not AND: Postgres does not promise to test the type before evaluating the cast.
  if (typeof value === "number") {
    return `(CASE WHEN jsonb_typeof(${jsonb}) = 'number' THEN (${jsonb})::numeric END) ${op} ${params.add(value)}::numeric`;
  }
  if (typeof value === "boolean") {
    return `(CASE WHEN jsonb_typeof(${jsonb}) = 'boolean' THEN (${jsonb})::boolean END) ${op} ${params.add(value)}::boolean`;
  }
  // One CASE expression, not `typeof AND value`: the planner estimates an AND of two unknown
  // expressions at ~1 row and then sorts every row of the stream instead of walking the time index.
  return `((CASE WHEN jsonb_typeof(${jsonb}) = 'string' THEN ${jsonb} #>> '{}' END) COLLATE "C" ${op} ${params.add(String(value))})`;
}

/** One payload condition (field_not_granted when the scope hides the field). */
export function conditionClause(params: Params, scope: StreamScope, condition: FieldCondition): string {
  requireGranted(scope, condition.field, `filter[${condition.field}]`);
  const { field, op, value } = condition;
  const kind = fieldKind(scope.stream, field);
  if (kind === "time_column") return `r.time ${OPS[op]} ${params.add(normalizeTime(value))}`;
  if (kind === "time_like")
    return `${timeLikeExpr(params, field)} ${OPS[op]} ${params.add(normalizeTime(value))}`;
  const p = payloadPath(params, field);
  if (kind === "array") {
    // An array matches when any element satisfies the comparison (eq: contains).
    return `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${p}) = 'array' THEN ${p}
              ELSE jsonb_build_array(${p}) END) AS el(v) WHERE ${typedCompare(params, "el.v", { op, value })})`;
  }
  return typedCompare(params, p, { op, value });
}

export function conditionsClause(params: Params, scope: StreamScope, conditions: FieldCondition[]): string {
  if (conditions.length === 0) return "TRUE";
  return conditions.map((c) => conditionClause(params, scope, c)).join(" AND ");
}
