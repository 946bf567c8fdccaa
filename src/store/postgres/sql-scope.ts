// SQL fragments shared by every Postgres read: parameters, the grant scope (connections, stream,
// time range, no tombstones) and typed payload conditions — enforced in SQL, never after the fact.
import type { StreamScope } from "../../core/grant.js";
import type { FieldCondition } from "../store.js";

/** Collects positional parameters; `add` returns the placeholder to splice into SQL. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The jsonb at a dotted payload path (`#>` with a text[] parameter, so paths never become SQL). */
export function payloadPath(params: Params, path: string, alias = "r"): string {
  return `(${alias}.payload #> ${params.add(path.split("."))}::text[])`;
}

/** Visibility of records under one scope: its stream, its connections, its time range, live only. */
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
  if (scope.since !== null) parts.push(`${alias}.time >= ${params.add(scope.since)}`);
  if (scope.until !== null) parts.push(`${alias}.time < ${params.add(scope.until)}`);
  return `(${parts.join(" AND ")})`;
}

/** Visibility under any of several scopes (lists and search fan in over them). */
export function scopesClause(
  params: Params,
  scopes: StreamScope[],
  options: { withTombstones?: boolean; conditions?: FieldCondition[] } = {},
): string {
  if (scopes.length === 0) return "FALSE";
  const each = scopes.map((s) => {
    const visible = scopeClause(params, s, { withTombstones: options.withTombstones });
    const conditions = options.conditions?.length
      ? ` AND ${conditionsClause(params, s, options.conditions)}`
      : "";
    return `(${visible}${conditions})`;
  });
  return `(${each.join(" OR ")})`;
}

const RANGE_SQL = { gte: ">=", gt: ">", lte: "<=", lt: "<" } as const;

/** One payload condition; `eq` on an array matches an element (jsonb containment does both). */
export function conditionClause(params: Params, scope: StreamScope, condition: FieldCondition): string {
  const { field, op, value } = condition;
  if (field === scope.stream.time_field) {
    const sqlOp = op === "eq" ? "=" : RANGE_SQL[op];
    return `r.time ${sqlOp} ${params.add(String(value))}`;
  }
  const p = payloadPath(params, field);
  if (op === "eq") return `${p} @> ${params.add(JSON.stringify(value))}::jsonb`;
  const sqlOp = RANGE_SQL[op];
  if (typeof value === "number") {
    return `(jsonb_typeof(${p}) = 'number' AND (${p})::numeric ${sqlOp} ${params.add(value)}::numeric)`;
  }
  if (typeof value === "boolean") {
    return `(jsonb_typeof(${p}) = 'boolean' AND (${p})::boolean ${sqlOp} ${params.add(value)}::boolean)`;
  }
  return `(jsonb_typeof(${p}) = 'string' AND (${p} #>> '{}') COLLATE "C" ${sqlOp} ${params.add(value)} COLLATE "C")`;
}

export function conditionsClause(params: Params, scope: StreamScope, conditions: FieldCondition[]): string {
  if (conditions.length === 0) return "TRUE";
  return conditions.map((c) => conditionClause(params, scope, c)).join(" AND ");
}
