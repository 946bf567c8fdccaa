// Inferring a connector manifest from sample records (`--infer`): field types, primary key, time and title
// fields, and the query capabilities that make sense for each type.

import { FIELD_SEGMENT_RE } from "../core/ids.js";
import type { FieldSchema, Manifest, StreamDef } from "../core/manifest.js";

/** The synthetic primary key added when no id column exists: sha256 of the record's canonical JSON. */
export const CONTENT_HASH_FIELD = "content_hash";

const DATE_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const INTEGER_RE = /^-?\d{1,15}$/;
const NUMBER_RE = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const BOOLEAN_RE = /^(true|false)$/i;
const LONG_TEXT_CHARS = 200;
const TITLE_NAMES = ["title", "subject", "name", "merchant", "description", "summary"];
const TIME_NAMES = ["date", "time", "timestamp", "created_at", "sent_at", "updated_at"];

type InferredType = "integer" | "number" | "boolean" | "date-time" | "string" | "array" | "object" | "null";

/** Type of one value; strings from text formats (CSV) are read for numbers, booleans and dates. */
export function inferValueType(value: unknown, fromText: boolean): InferredType {
  if (value === null || value === undefined || value === "") return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  const text = String(value);
  if (DATE_RE.test(text) && !Number.isNaN(Date.parse(text.replace(" ", "T")))) return "date-time";
  if (fromText) {
    if (INTEGER_RE.test(text)) return "integer";
    if (NUMBER_RE.test(text)) return "number";
    if (BOOLEAN_RE.test(text)) return "boolean";
  }
  return "string";
}

function merge(a: InferredType, b: InferredType): InferredType {
  if (a === b || b === "null") return a;
  if (a === "null") return b;
  if ((a === "integer" && b === "number") || (a === "number" && b === "integer")) return "number";
  return "string";
}

export interface InferOptions {
  connectorKey: string;
  stream: string;
  displayName?: string;
  /** True for CSV, where every value arrives as text. */
  fromText: boolean;
}

/** A manifest for one stream whose records look like `samples`. Column order is first-seen order. */
export function inferManifest(samples: Record<string, unknown>[], options: InferOptions): Manifest {
  const types = new Map<string, InferredType>();
  const maxLength = new Map<string, number>();
  for (const record of samples) {
    for (const [key, value] of Object.entries(record)) {
      if (!FIELD_SEGMENT_RE.test(key)) continue; // unusable as a field name; kept in the payload only
      types.set(key, merge(types.get(key) ?? "null", inferValueType(value, options.fromText)));
      if (typeof value === "string") maxLength.set(key, Math.max(maxLength.get(key) ?? 0, value.length));
    }
  }
  const names = [...types.keys()];
  const idColumn =
    names.find((n) => n === "id") ?? names.find((n) => n.endsWith("_id") && isUnique(samples, n));
  const primaryKey = idColumn && isUnique(samples, idColumn) ? idColumn : CONTENT_HASH_FIELD;

  const properties: Record<string, FieldSchema> = {};
  for (const [name, type] of types) properties[name] = schemaFor(type);
  if (primaryKey === CONTENT_HASH_FIELD) {
    properties[CONTENT_HASH_FIELD] = {
      type: "string",
      description: "sha256 of the record (no id column found).",
    };
  }
  const of = (...wanted: InferredType[]) => names.filter((n) => wanted.includes(types.get(n)!));
  const dates = of("date-time");
  const longText = of("string").filter((n) => (maxLength.get(n) ?? 0) > LONG_TEXT_CHARS);
  const shortText = of("string").filter((n) => !longText.includes(n));
  const numbers = of("integer", "number");
  const timeField = TIME_NAMES.find((n) => dates.includes(n)) ?? dates[0];
  const titleField =
    TITLE_NAMES.find((n) => shortText.includes(n)) ?? shortText.find((n) => n !== primaryKey);

  const stream: StreamDef = {
    name: options.stream,
    primary_key: [primaryKey],
    ...(timeField ? { cursor_field: timeField, time_field: timeField } : {}),
    ...(titleField ? { title_field: titleField } : {}),
    schema: { type: "object", properties },
    text_fields: longText,
    query: {
      search: [...shortText.filter((n) => n !== primaryKey), ...longText],
      exact_filters: [...shortText, ...of("boolean", "integer")],
      range_filters: Object.fromEntries([...numbers, ...dates].map((n) => [n, ["gte", "gt", "lte", "lt"]])),
      aggregations: {
        group_by: [...shortText.filter((n) => n !== primaryKey), ...of("boolean")],
        group_by_time: dates,
        sum: numbers,
        min: [...numbers, ...dates],
        max: [...numbers, ...dates],
        count_distinct: shortText,
      },
    },
  };
  return {
    connector_key: options.connectorKey,
    display_name: options.displayName ?? options.connectorKey,
    version: "1",
    description: "Inferred from the imported file (pdpp import --infer).",
    streams: [stream],
  };
}

function schemaFor(type: InferredType): FieldSchema {
  if (type === "date-time") return { type: "string", format: "date-time" };
  if (type === "null") return { type: "string" };
  return { type };
}

function isUnique(samples: Record<string, unknown>[], name: string): boolean {
  const seen = new Set<unknown>();
  for (const record of samples) {
    const value = record[name];
    if (value === null || value === undefined || value === "" || seen.has(value)) return false;
    if (typeof value === "object") return false;
    seen.add(value);
  }
  return true;
}
