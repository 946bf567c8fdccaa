// Per-field capability flags (10-data-model.md "Field capabilities"), derived from a stream's
// manifest and the caller's granted fields; also the one "is this field granted" rule.
import { PdppError } from "./errors.js";
import type { AggregationKind, FieldSchema, RangeOp, StreamDef } from "./manifest.js";
import { isPathGranted } from "./projection.js";
import type { FieldCapabilities } from "./wire.js";

/**
 * True when `path` is readable under `granted`: everything for "all", primary-key fields always
 * (they are part of every record's identity), a listed path, or a path under a listed object.
 * The same rule as core/grant.ts scopeGrantsPath, for callers that hold a stream and field list.
 */
export function isFieldGranted(stream: StreamDef, granted: string[] | "all", path: string): boolean {
  if (isPathGranted(path, granted)) return true;
  return stream.primary_key.some((key) => path === key || path.startsWith(`${key}.`));
}

/**
 * 403 field_not_granted for a field named in `param`. The message never repeats the field: the
 * caller knows what it asked for, and the error must not confirm what a hidden field is called.
 */
export function fieldNotGranted(param: string): PdppError {
  return new PdppError(
    "field_not_granted",
    `the grant does not include a field named in ${param}; see schema(stream) for granted fields.`,
    { param },
  );
}

/** Every field path a schema declares: top-level names and, under objects with properties, dotted leaves. */
export function listFieldPaths(stream: StreamDef): { path: string; schema: FieldSchema }[] {
  const out: { path: string; schema: FieldSchema }[] = [];
  const walk = (props: Record<string, FieldSchema>, prefix: string): void => {
    for (const [name, schema] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${name}` : name;
      out.push({ path, schema });
      if (schema.type === "object" && schema.properties) walk(schema.properties, path);
    }
  };
  walk(stream.schema.properties, "");
  return out;
}

function aggregationKinds(stream: StreamDef, path: string): AggregationKind[] {
  const aggs = stream.query?.aggregations ?? {};
  const kinds: AggregationKind[] = [];
  for (const kind of ["group_by", "group_by_time", "sum", "min", "max", "count_distinct"] as const) {
    if (aggs[kind]?.includes(path)) kinds.push(kind);
  }
  return kinds;
}

export function fieldTypeName(schema: FieldSchema): string {
  if (schema.type === "string" && schema.format) return `string:${schema.format}`;
  return schema.type ?? "any";
}

/** Capabilities of every declared field for a caller with `granted` fields. */
export function fieldCapabilities(
  stream: StreamDef,
  granted: string[] | "all",
  options: { full?: boolean } = {},
): Record<string, FieldCapabilities> {
  const text = new Set(stream.text_fields ?? []);
  const binary = new Set(stream.binary_fields ?? []);
  const result: Record<string, FieldCapabilities> = {};
  for (const { path, schema } of listFieldPaths(stream)) {
    const ok = isFieldGranted(stream, granted, path);
    const caps: FieldCapabilities = {
      type: fieldTypeName(schema),
      granted: ok,
      exact_filter: ok && (stream.query?.exact_filters ?? []).includes(path),
      range_filter: ok ? ((stream.query?.range_filters?.[path] ?? []) as RangeOp[]) : [],
      search: ok && (stream.query?.search ?? []).includes(path),
      aggregations: ok ? aggregationKinds(stream, path) : [],
      text_like: text.has(path),
    };
    if (binary.has(path)) caps.binary = true;
    if (schema.contentMediaType) caps.mime_type = schema.contentMediaType;
    if (options.full && schema.description) caps.description = schema.description;
    result[path] = caps;
  }
  return result;
}

/** Fields a list may sort by: cursor_field, time_field and range-filterable fields. */
export function sortableFields(stream: StreamDef): string[] {
  const fields = new Set<string>();
  if (stream.cursor_field) fields.add(stream.cursor_field);
  if (stream.time_field) fields.add(stream.time_field);
  for (const f of Object.keys(stream.query?.range_filters ?? {})) fields.add(f);
  return [...fields];
}

/** The JSON Schema of the payload narrowed to granted fields (view=full). */
export function grantedSchema(stream: StreamDef, granted: string[] | "all"): Record<string, unknown> {
  const narrow = (props: Record<string, FieldSchema>, prefix: string): Record<string, FieldSchema> => {
    const out: Record<string, FieldSchema> = {};
    for (const [name, schema] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (isFieldGranted(stream, granted, path)) out[name] = schema;
      else if (schema.type === "object" && schema.properties) {
        const inner = narrow(schema.properties, path);
        if (Object.keys(inner).length > 0) out[name] = { ...schema, properties: inner };
      }
    }
    return out;
  };
  return { type: "object", properties: narrow(stream.schema.properties, "") };
}
