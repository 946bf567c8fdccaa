// Parses `filter[f]=v` / `filter[f][op]=v` query parameters, checks them against each stream's
// manifest and grant, and coerces values by the field's declared type into FieldConditions.

import type { FieldCondition } from "../store/store.js";
import { fieldNotGranted, isFieldGranted } from "./capabilities.js";
import { PdppError } from "./errors.js";
import type { StreamScope } from "./grant.js";
import { requireFieldInEveryConnector, requireInEveryConnector } from "./grant-scope.js";
import { isFieldPath } from "./ids.js";
import { type FieldSchema, fieldSchemaAt, type RangeOp, type StreamDef } from "./manifest.js";
import { normalizeTime } from "./time.js";

export const MAX_FILTER_FIELDS = 16;
export const MAX_FILTER_VALUE_CHARS = 4096;
const OPS = new Set(["eq", "gte", "gt", "lte", "lt"]);
const KEY_RE = /^filter\[([^[\]]*)\](?:\[([^[\]]*)\])?$/;

export interface RawFilter {
  field: string;
  op: FieldCondition["op"];
  value: string;
}

function invalidFilter(message: string): PdppError {
  return new PdppError("invalid_filter", message, { param: "filter" });
}

/** True for a query parameter name that belongs to the filter syntax. */
export function isFilterKey(key: string): boolean {
  return key === "filter" || key.startsWith("filter[");
}

/** Syntax only: pick every filter parameter out of a query string's entries. */
export function parseFilterEntries(entries: Iterable<[string, string]>): RawFilter[] {
  const out: RawFilter[] = [];
  const seen = new Set<string>();
  const fields = new Set<string>();
  for (const [key, value] of entries) {
    if (!isFilterKey(key)) continue;
    const m = KEY_RE.exec(key);
    if (!m)
      throw invalidFilter("filters look like filter[field]=value or filter[field][gte|gt|lte|lt]=value.");
    const field = m[1];
    const op = m[2] ?? "eq";
    if (!isFieldPath(field))
      throw invalidFilter("a filter field must be a field path like sent_at or sender.email.");
    if (!OPS.has(op)) throw invalidFilter("a filter op must be one of eq, gte, gt, lte, lt.");
    if (value.includes("\u0000")) throw invalidFilter("a filter value must not contain NUL characters.");
    if (value.length > MAX_FILTER_VALUE_CHARS) {
      throw invalidFilter(`a filter value is limited to ${MAX_FILTER_VALUE_CHARS} characters.`);
    }
    const id = `${field}\u0000${op}`;
    if (seen.has(id)) throw invalidFilter(`filter[${field}][${op}] is given twice; pass it once.`);
    seen.add(id);
    fields.add(field);
    if (fields.size > MAX_FILTER_FIELDS) {
      throw new PdppError(
        "limit_exceeded",
        `at most ${MAX_FILTER_FIELDS} filter fields are allowed per request.`,
        {
          param: "filter",
        },
      );
    }
    out.push({ field, op: op as FieldCondition["op"], value });
  }
  return out;
}

/** Time-like values compare as ISO-8601 UTC strings (core/time.ts, the form both stores use). */
function normaliseTime(value: string, field: string): string {
  try {
    const iso = normalizeTime(value);
    if (iso !== null) return iso;
  } catch {
    // reported below as a filter error
  }
  throw invalidFilter(
    `filter[${field}] needs an ISO-8601 date or date-time like 2024-01-31 or 2024-01-31T12:00:00Z.`,
  );
}

/** Coerce a filter value by the field's declared type (arrays by their item type). */
export function coerceFilterValue(stream: StreamDef, field: string, value: string): FieldCondition["value"] {
  const declared = fieldSchemaAt(stream, field) as FieldSchema;
  const schema = declared.type === "array" ? (declared.items ?? {}) : declared;
  if (field === stream.time_field) return normaliseTime(value, field);
  switch (schema.type) {
    case "integer": {
      if (!/^-?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw invalidFilter(`filter[${field}] needs an integer.`);
      }
      return Number(value);
    }
    case "number": {
      const n = Number(value);
      if (value.trim() === "" || !Number.isFinite(n)) throw invalidFilter(`filter[${field}] needs a number.`);
      return n;
    }
    case "boolean": {
      if (value !== "true" && value !== "false") throw invalidFilter(`filter[${field}] needs true or false.`);
      return value === "true";
    }
    case "object":
      throw invalidFilter(`filter[${field}] is an object; filter on one of its fields instead.`);
    case "string":
      if (schema.format === "date-time") return normaliseTime(value, field);
      if (schema.format === "date") return normaliseTime(value, field);
      return value;
    default:
      return value;
  }
}

function supports(stream: StreamDef, raw: RawFilter): boolean {
  if (raw.op === "eq") return (stream.query?.exact_filters ?? []).includes(raw.field);
  return (stream.query?.range_filters?.[raw.field] ?? []).includes(raw.op as RangeOp);
}

/** Whether a scope coerces the value as the first scope that coerces it at all does. */
function coercesAlike(
  scopes: Pick<StreamScope, "stream">[],
  raw: RawFilter,
): (scope: Pick<StreamScope, "stream">) => boolean {
  const coerce = (s: Pick<StreamScope, "stream">) => {
    try {
      return fieldSchemaAt(s.stream, raw.field)
        ? coerceFilterValue(s.stream, raw.field, raw.value)
        : undefined;
    } catch {
      return undefined;
    }
  };
  const reference = scopes.map(coerce).find((v) => v !== undefined);
  return (s) => reference !== undefined && coerce(s) === reference;
}

function checkCapability(stream: StreamDef, raw: RawFilter): void {
  if (raw.op === "eq") {
    if (!(stream.query?.exact_filters ?? []).includes(raw.field)) {
      throw invalidFilter(
        `${raw.field} does not support exact filters on ${stream.name}; see schema(stream) for eq fields.`,
      );
    }
    return;
  }
  const ops = stream.query?.range_filters?.[raw.field] ?? [];
  if (!ops.includes(raw.op as RangeOp)) {
    const allowed = ops.length > 0 ? ops.join(", ") : "none";
    throw invalidFilter(`${raw.field} does not support ${raw.op} on ${stream.name} (range ops: ${allowed}).`);
  }
}

/**
 * Validate raw filters against every scope a read fans in over (a field must be declared,
 * granted and filterable in each) and coerce the values. Unknown → invalid_filter; declared
 * but not granted → 403 field_not_granted.
 */
export function resolveFilters(
  raws: RawFilter[],
  scopes: (Pick<StreamScope, "stream" | "fields"> & { connectorKey?: string })[],
): FieldCondition[] {
  return raws.map((raw) => {
    requireFieldInEveryConnector(scopes, { field: raw.field, param: "filter" });
    // Declared everywhere but filterable, granted or typed alike in only some connectors: the
    // bare name is ambiguous for this filter, not unsupported.
    requireInEveryConnector(scopes, {
      param: "filter",
      why: `only some of them allow ${raw.op} on ${raw.field}`,
      allows: (s) => supports(s.stream, raw),
    });
    requireInEveryConnector(scopes, {
      param: "filter",
      why: `${raw.field} is granted in only some of them`,
      allows: (s) => isFieldGranted(s.stream, s.fields, raw.field),
    });
    requireInEveryConnector(scopes, {
      param: "filter",
      why: `${raw.field} is typed differently across them`,
      allows: coercesAlike(scopes, raw),
    });
    let value: FieldCondition["value"] | undefined;
    for (const scope of scopes) {
      if (!fieldSchemaAt(scope.stream, raw.field)) {
        throw invalidFilter(
          `${scope.stream.name} has no field ${raw.field}; see schema(stream) for its fields.`,
        );
      }
      if (!isFieldGranted(scope.stream, scope.fields, raw.field)) throw fieldNotGranted("filter");
      checkCapability(scope.stream, raw);
      const coerced = coerceFilterValue(scope.stream, raw.field, raw.value);
      if (value !== undefined && coerced !== value) {
        throw invalidFilter(
          `filter[${raw.field}] is typed differently across the connectors of this stream.`,
        );
      }
      value = coerced;
    }
    return { field: raw.field, op: raw.op, value: value ?? raw.value };
  });
}
