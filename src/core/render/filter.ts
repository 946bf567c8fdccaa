// The typed filter of query_records/aggregate/search: checked before any RS call, then encoded
// as the RS's `filter[f]=v` / `filter[f][op]=v` query parameters.
import { PdppError } from "../errors.js";
import { isFieldPath } from "../ids.js";

export const FILTER_OPS = ["eq", "gt", "gte", "lt", "lte"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
export interface FilterCondition {
  field: string;
  op: FilterOp;
  value: string;
}
export const MAX_FILTER_CONDITIONS = 16;

function invalid(message: string): PdppError {
  return new PdppError("invalid_filter", message, { param: "filter" });
}

/** Validate a filter argument; undefined stays undefined. Throws `invalid_filter`. */
export function checkFilter(filter: unknown): FilterCondition[] | undefined {
  if (filter === undefined) return undefined;
  if (!Array.isArray(filter)) {
    throw invalid('filter must be a list like [{"field":"sent_at","op":"gte","value":"2024-01-01"}].');
  }
  if (filter.length === 0)
    throw invalid("filter must hold at least one condition; omit it to match everything.");
  if (filter.length > MAX_FILTER_CONDITIONS) {
    throw invalid(`filter holds at most ${MAX_FILTER_CONDITIONS} conditions; narrow it.`);
  }
  return filter.map((raw, index) => {
    const c = raw as Partial<FilterCondition> | null;
    if (!c || typeof c !== "object" || Array.isArray(c))
      throw invalid(`filter[${index}] must be {field, op, value}.`);
    const keys = Object.keys(c).filter((k) => k !== "field" && k !== "op" && k !== "value");
    if (keys.length > 0)
      throw invalid(`filter[${index}] has unknown key ${keys[0]}; use only field, op, value.`);
    if (typeof c.field !== "string" || c.field.length > 512 || !isFieldPath(c.field)) {
      throw invalid(`filter[${index}].field must be a field name from schema(stream), without brackets.`);
    }
    if (!FILTER_OPS.includes(c.op as FilterOp)) {
      throw invalid(`filter[${index}].op must be one of ${FILTER_OPS.join(", ")}.`);
    }
    const value: unknown = c.value;
    // A JSON number or boolean is its text: the RS coerces by the field's declared type.
    if (typeof value === "number" && Number.isFinite(value))
      return { field: c.field, op: c.op as FilterOp, value: String(value) };
    if (typeof value === "boolean") return { field: c.field, op: c.op as FilterOp, value: String(value) };
    if (typeof value !== "string")
      throw invalid(
        `filter[${index}].value must be a string, number or boolean; the RS coerces it by the field's type.`,
      );
    return { field: c.field, op: c.op as FilterOp, value };
  });
}

/** `filter[f]=v` for eq, `filter[f][op]=v` otherwise. */
export function filterParams(conditions: FilterCondition[] | undefined): [string, string][] {
  if (!conditions) return [];
  return conditions.map((c) =>
    c.op === "eq" ? [`filter[${c.field}]`, c.value] : [`filter[${c.field}][${c.op}]`, c.value],
  );
}
