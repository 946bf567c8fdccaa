// Validates a connector manifest (10-data-model.md): shape with zod (unknown keys rejected), then
// cross-checks that every referenced field exists and suits its use. Failures → manifest_invalid.
import { z } from "zod";
import { PdppError } from "./errors.js";
import { CONNECTOR_KEY_RE, FIELD_SEGMENT_RE, isFieldPath, STREAM_NAME_RE } from "./ids.js";
import { type FieldSchema, fieldSchemaAt, isTimeLike, type Manifest, type StreamDef } from "./manifest.js";

const fieldPath = z.string().refine(isFieldPath, "must be a field path like body or sender.email");
const fieldList = z.array(fieldPath).max(1000);
const rangeOp = z.enum(["gte", "gt", "lte", "lt"]);
const jsonType = z.enum(["string", "number", "integer", "boolean", "array", "object", "null"]);

// JSON Schema properties stay open (annotations like `examples` are fine); pdpp reads type/format.
const fieldSchema: z.ZodType<FieldSchema> = z.lazy(() =>
  z.looseObject({
    type: jsonType.optional(),
    format: z.string().optional(),
    description: z.string().max(20_000).optional(),
    contentMediaType: z.string().optional(),
    properties: z.record(z.string().regex(FIELD_SEGMENT_RE, "bad field name"), fieldSchema).optional(),
    items: fieldSchema.optional(),
  }),
);

const streamSchema = z.strictObject({
  name: z.string().regex(STREAM_NAME_RE, "must match ^[a-z][a-z0-9_]{0,63}$"),
  display_name: z.string().min(1).max(200).optional(),
  description: z.string().max(20_000).optional(),
  primary_key: z.array(fieldPath).min(1).max(8),
  cursor_field: fieldPath.optional(),
  time_field: fieldPath.optional(),
  title_field: fieldPath.optional(),
  schema: z.looseObject({
    type: z.literal("object"),
    properties: z.record(z.string().regex(FIELD_SEGMENT_RE, "bad field name"), fieldSchema),
    required: z.array(z.string()).optional(),
  }),
  text_fields: fieldList.optional(),
  binary_fields: fieldList.optional(),
  query: z
    .strictObject({
      search: fieldList.optional(),
      search_weights: z.record(fieldPath, z.number().gt(0).max(100)).optional(),
      exact_filters: fieldList.optional(),
      range_filters: z.record(fieldPath, z.array(rangeOp).min(1)).optional(),
      aggregations: z
        .strictObject({
          group_by: fieldList.optional(),
          group_by_time: fieldList.optional(),
          sum: fieldList.optional(),
          min: fieldList.optional(),
          max: fieldList.optional(),
          count_distinct: fieldList.optional(),
        })
        .optional(),
    })
    .optional(),
});

const manifestSchema = z.strictObject({
  connector_key: z.string().regex(CONNECTOR_KEY_RE, "must match ^[a-z0-9][a-z0-9._-]{0,63}$"),
  display_name: z.string().min(1).max(200),
  version: z.string().min(1).max(64),
  description: z.string().max(20_000).optional(),
  streams: z.array(streamSchema).min(1).max(500),
});

const isScalar = (s: FieldSchema) => ["string", "number", "integer", "boolean"].includes(s.type ?? "");
const isNumeric = (s: FieldSchema) => s.type === "number" || s.type === "integer";

/** Cross-checks of one stream; returns human-readable problems. */
function streamProblems(stream: StreamDef, at: string): string[] {
  const problems: string[] = [];
  const need = (path: string | undefined, where: string, check?: [(s: FieldSchema) => boolean, string]) => {
    if (path === undefined) return;
    const schema = fieldSchemaAt(stream, path);
    if (!schema) problems.push(`${at}.${where}: field '${path}' is not in the schema`);
    else if (check && !check[0](schema)) problems.push(`${at}.${where}: field '${path}' ${check[1]}`);
  };
  const timeLike: [(s: FieldSchema) => boolean, string] = [isTimeLike, "must be a date-time or date string"];
  for (const pk of stream.primary_key)
    need(pk, "primary_key", [isScalar, "must be a string, number or boolean"]);
  need(stream.cursor_field, "cursor_field", [isScalar, "must be a scalar"]);
  need(stream.time_field, "time_field", timeLike);
  need(stream.title_field, "title_field", [(s) => s.type === "string", "must be a string"]);
  for (const f of stream.text_fields ?? [])
    need(f, "text_fields", [(s) => s.type === "string", "must be a string"]);
  for (const f of stream.binary_fields ?? []) need(f, "binary_fields");
  const q = stream.query ?? {};
  for (const f of q.search ?? [])
    need(f, "query.search", [(s) => s.type === "string" || s.type === "array", "must be text"]);
  for (const f of Object.keys(q.search_weights ?? {}))
    if (!(q.search ?? []).includes(f))
      problems.push(`${at}.query.search_weights: field '${f}' is not in query.search`);
  for (const f of q.exact_filters ?? [])
    need(f, "query.exact_filters", [(s) => s.type !== "object", "must not be an object"]);
  for (const f of Object.keys(q.range_filters ?? {})) {
    need(f, "query.range_filters", [
      (s) => isNumeric(s) || isTimeLike(s) || s.type === "string",
      "must be a number, date or string",
    ]);
  }
  const aggs = q.aggregations ?? {};
  for (const f of aggs.group_by ?? [])
    need(f, "query.aggregations.group_by", [(s) => s.type !== "object", "must not be an object"]);
  for (const f of aggs.group_by_time ?? []) need(f, "query.aggregations.group_by_time", timeLike);
  for (const f of aggs.sum ?? []) need(f, "query.aggregations.sum", [isNumeric, "must be a number"]);
  for (const kind of ["min", "max"] as const) {
    for (const f of aggs[kind] ?? []) {
      need(f, `query.aggregations.${kind}`, [
        (s) => isNumeric(s) || isTimeLike(s),
        "must be a number or a date",
      ]);
    }
  }
  for (const f of aggs.count_distinct ?? []) need(f, "query.aggregations.count_distinct");
  return problems;
}

/**
 * Deepest JSON nesting (objects and arrays) a manifest may have. A stream's schema starts at level
 * 4 (manifest, streams, stream, schema) and each nested object field adds two (properties, field),
 * so this allows 30 levels of nested fields: far beyond any real connector, and bounded so that
 * the recursive checks below can never exhaust the stack (a depth of ~1,000 used to answer 500).
 */
export const MAX_MANIFEST_DEPTH = 64;

/** True when `input` nests deeper than `limit`; iterative, so any depth is safe to measure. */
function nestsDeeperThan(input: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[input, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Parse and validate a manifest; throws manifest_invalid listing (up to 10) problems. */
export function validateManifest(input: unknown): Manifest {
  if (nestsDeeperThan(input, MAX_MANIFEST_DEPTH)) {
    const problem = `manifest: nested deeper than ${MAX_MANIFEST_DEPTH} levels of objects and arrays; flatten the schema`;
    throw new PdppError("manifest_invalid", `manifest invalid: ${problem}.`, {
      details: { problems: [problem], problem_count: 1 },
    });
  }
  const parsed = manifestSchema.safeParse(input);
  let problems: string[];
  if (!parsed.success) {
    problems = parsed.error.issues.map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "manifest";
      return `${path}: ${issue.message}`;
    });
  } else {
    const manifest = parsed.data as Manifest;
    problems = manifest.streams.flatMap((s, i) => streamProblems(s, `streams.${i}(${s.name})`));
    const names = manifest.streams.map((s) => s.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) problems.unshift(`streams: stream '${dup}' is declared twice`);
    if (problems.length === 0) return manifest;
  }
  const shown = problems.slice(0, 10);
  throw new PdppError("manifest_invalid", `manifest invalid: ${shown.join("; ")}.`, {
    details: { problems: shown, problem_count: problems.length },
  });
}
