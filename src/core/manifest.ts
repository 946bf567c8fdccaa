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
