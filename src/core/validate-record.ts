// Checks one payload against its stream definition before ingest; a reason string means "reject".
import type { FieldSchema, StreamDef } from "./manifest.js";
import { fieldSchemaAt } from "./manifest.js";
import { getPath } from "./projection.js";
import { tryNormalizeTime } from "./time.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Loose type check of a declared property: null is always allowed. */
function typeMismatch(value: unknown, schema: FieldSchema): string | null {
  if (value === null || value === undefined || !schema.type) return null;
  switch (schema.type) {
    case "string":
      return typeof value === "string" ? null : "a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "a number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? null : "an integer";
    case "boolean":
      return typeof value === "boolean" ? null : "a boolean";
    case "array":
      return Array.isArray(value) ? null : "an array";
    case "object":
      return isPlainObject(value) ? null : "an object";
    default:
      return null;
  }
}

/** Primary-key presence and scalarity: shared by upserts and deletes. */
export function primaryKeyProblem(data: unknown, stream: StreamDef): string | null {
  if (!isPlainObject(data)) return "data must be a JSON object";
  for (const key of stream.primary_key) {
    const value = getPath(data, key);
    if (value === undefined || value === null || value === "") return `primary-key field ${key} is missing`;
    if (typeof value === "number" && !Number.isFinite(value))
      return `primary-key field ${key} must be finite`;
    if (!["string", "number", "boolean"].includes(typeof value)) {
      return `primary-key field ${key} must be a string, number or boolean`;
    }
  }
  return null;
}

/** Why this payload cannot be stored in `stream`, or null when it can. */
export function validateRecord(data: unknown, stream: StreamDef): string | null {
  const pkProblem = primaryKeyProblem(data, stream);
  if (pkProblem) return pkProblem;
  const payload = data as Record<string, unknown>;
  for (const field of stream.text_fields ?? []) {
    const value = getPath(payload, field);
    if (value !== undefined && value !== null && typeof value !== "string")
      return `text field ${field} must be a string`;
  }
  if (stream.time_field) {
    const value = getPath(payload, stream.time_field);
    if (value !== undefined && value !== null && tryNormalizeTime(value) === null) {
      return `time field ${stream.time_field} is not a valid time`;
    }
  }
  for (const [name, schema] of Object.entries(stream.schema.properties)) {
    const expected = typeMismatch(payload[name], schema);
    if (expected) return `field ${name} must be ${expected}`;
    if (schema.type === "object" && schema.properties && isPlainObject(payload[name])) {
      for (const sub of Object.keys(schema.properties)) {
        const subSchema = fieldSchemaAt(stream, `${name}.${sub}`);
        const subExpected = subSchema ? typeMismatch(getPath(payload, `${name}.${sub}`), subSchema) : null;
        if (subExpected) return `field ${name}.${sub} must be ${subExpected}`;
      }
    }
  }
  return null;
}
