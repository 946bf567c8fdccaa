// Checks one payload against its stream definition before ingest; a reason string means "reject".

import { encodeRecordId, MAX_SAFE_NAME_LENGTH } from "./ids.js";
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

// U+0000 and lone UTF-16 surrogates cannot be stored by Postgres nor encoded as UTF-8 ids:
// both stores reject them so they behave the same.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what we look for
const UNSTORABLE_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Native checks (Node ≥ 20: String.prototype.isWellFormed) are far cheaper than the regex's
// lookbehind on long texts; the regex stays the definition and the fallback.
const wellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

function isUnstorable(text: string): boolean {
  if (wellFormed) return !wellFormed.call(text) || text.includes("\u0000");
  return UNSTORABLE_RE.test(text);
}

const toWellFormed = (String.prototype as { toWellFormed?: () => string }).toWellFormed;
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every lone surrogate and NUL replaced by U+FFFD (what lossy UTF-8 decoding gives). */
export function repairText(text: string): string {
  const formed = toWellFormed ? toWellFormed.call(text) : text.replace(LONE_SURROGATE_RE, "\ufffd");
  return formed.includes("\u0000") ? formed.replaceAll("\u0000", "\ufffd") : formed;
}

/**
 * `value` with every string (and key) the stores cannot hold repaired by repairText, sharing what
 * needed no repair; `paths` lists the repaired paths (objects/arrays are copied only along them).
 */
export function repairUnstorable(
  value: unknown,
  path = "",
  paths: string[] = [],
): { value: unknown; paths: string[] } {
  if (typeof value === "string") {
    if (!isUnstorable(value)) return { value, paths };
    paths.push(path || "(value)");
    return { value: repairText(value), paths };
  }
  if (value === null || typeof value !== "object") return { value, paths };
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((item, i) => {
      const fixed = repairUnstorable(item, `${path}[${i}]`, paths).value;
      if (fixed === item) return;
      out ??= [...value];
      out[i] = fixed;
    });
    return { value: out ?? value, paths };
  }
  let out: Record<string, unknown> | null = null;
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const fixed = repairUnstorable(inner, at, paths).value;
    const badKey = isUnstorable(key);
    if (badKey) paths.push(at);
    if (fixed === inner && !badKey) continue;
    out ??= { ...(value as Record<string, unknown>) };
    if (badKey) delete out[key];
    out[badKey ? repairText(key) : key] = fixed;
  }
  return { value: out ?? value, paths };
}

/** The path of the first string (or key) that holds NUL or a lone surrogate, or null. */
function unstorablePath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return isUnstorable(value) ? path || "(value)" : null;
  if (value === null || typeof value !== "object" || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (isUnstorable(key)) return at;
    const found = unstorablePath(inner, at, depth + 1);
    if (found) return found;
  }
  return null;
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
    if (typeof value === "string" && UNSTORABLE_RE.test(value)) {
      return `primary-key field ${key} holds NUL or an unpaired surrogate`;
    }
  }
  const recordId = encodeRecordId(stream.primary_key.map((key) => getPath(data, key)));
  if (recordId.length > MAX_SAFE_NAME_LENGTH) {
    return `the encoded record id is ${recordId.length} characters; at most ${MAX_SAFE_NAME_LENGTH} are allowed`;
  }
  return null;
}

/** Why this payload cannot be stored in `stream`, or null when it can. */
export function validateRecord(data: unknown, stream: StreamDef): string | null {
  const pkProblem = primaryKeyProblem(data, stream);
  if (pkProblem) return pkProblem;
  const payload = data as Record<string, unknown>;
  const unstorable = unstorablePath(payload, "");
  if (unstorable) return `field ${unstorable} holds NUL or an unpaired surrogate, which cannot be stored`;
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
