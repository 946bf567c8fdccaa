// Connector manifest types (10-data-model.md). Validation lives in manifest-validate.ts.

export type RangeOp = "gte" | "gt" | "lte" | "lt";
export type AggregationKind =
  | "count"
  | "sum"
  | "min"
  | "max"
  | "count_distinct"
  | "group_by"
  | "group_by_time";

/** A JSON Schema property, as much of it as pdpp reads. */
export interface FieldSchema {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object" | "null";
  format?: string; // "date-time" | "date" mark time-like strings
  description?: string;
  contentMediaType?: string; // mime type of a text or binary field
  properties?: Record<string, FieldSchema>;
  items?: FieldSchema;
  [key: string]: unknown;
}

export interface StreamQueryCapabilities {
  search?: string[];
  /** Ranking weight per search field (default: 2 for the title field, 1 otherwise). */
  search_weights?: Record<string, number>;
  exact_filters?: string[];
  range_filters?: Record<string, RangeOp[]>;
  aggregations?: {
    group_by?: string[];
    group_by_time?: string[];
    sum?: string[];
    min?: string[];
    max?: string[];
    count_distinct?: string[];
  };
}

export interface StreamDef {
  name: string;
  display_name?: string;
  description?: string;
  primary_key: string[];
  cursor_field?: string;
  time_field?: string;
  title_field?: string;
  schema: { type: "object"; properties: Record<string, FieldSchema>; required?: string[] };
  text_fields?: string[];
  binary_fields?: string[];
  query?: StreamQueryCapabilities;
}

export interface Manifest {
  connector_key: string;
  display_name: string;
  version: string;
  description?: string;
  streams: StreamDef[];
}

export function findStream(manifest: Manifest, stream: string): StreamDef | undefined {
  return manifest.streams.find((s) => s.name === stream);
}

/** The JSON Schema of a (possibly dotted) field path, or undefined when the schema lacks it. */
export function fieldSchemaAt(stream: StreamDef, path: string): FieldSchema | undefined {
  const segments = path.split(".");
  let props: Record<string, FieldSchema> | undefined = stream.schema.properties;
  let found: FieldSchema | undefined;
  for (const segment of segments) {
    if (!props || !Object.hasOwn(props, segment)) return undefined;
    found = props[segment];
    props = found?.properties;
  }
  return found;
}

/** True for fields whose values are timestamps (date-time/date strings): they sort and bucket by time. */
export function isTimeLike(schema: FieldSchema | undefined): boolean {
  return schema?.type === "string" && (schema.format === "date-time" || schema.format === "date");
}

/**
 * Paths a store keeps out of the payload JSON, in chunk rows (text_fields, 65,536 code points per
 * chunk): every text field, and every binary field that no query, key or role reads from the
 * payload. A read then skips their bytes unless it asks for them: a preview read (the MCP adapter's)
 * learns a binary field's size from its chunk metadata, so a fetch of a record with a 20 MB blob
 * costs what a fetch without one does (issue 9 item 7). Rows stored before binary fields moved out
 * still hold them inline; reads handle both.
 */
export function chunkedFields(stream: StreamDef): string[] {
  let paths = chunkedMemo.get(stream);
  if (!paths) {
    paths = computeChunkedFields(stream);
    chunkedMemo.set(stream, paths);
  }
  return paths;
}

// Manifests are immutable once stored (deep-frozen), so a stream's layout is computed once.
const chunkedMemo = new WeakMap<StreamDef, string[]>();

function computeChunkedFields(stream: StreamDef): string[] {
  const q = stream.query ?? {};
  const aggs = q.aggregations ?? {};
  const readInline = new Set<string>([
    ...stream.primary_key,
    ...[stream.cursor_field, stream.time_field, stream.title_field].filter((f): f is string => !!f),
    ...(q.search ?? []),
    ...(q.exact_filters ?? []),
    ...Object.keys(q.range_filters ?? {}),
    ...Object.values(aggs).flat(),
  ]);
  const text = stream.text_fields ?? [];
  const binary = (stream.binary_fields ?? []).filter((f) => !readInline.has(f) && !text.includes(f));
  return binary.length === 0 ? text : [...text, ...binary];
}
