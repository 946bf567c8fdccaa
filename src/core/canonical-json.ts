// Canonical JSON (object keys sorted, no whitespace) so equal payloads always hash to the same digest.
import { sha256Digest } from "./ids.js";

function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : canonicalValue(item)));
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) out[key] = canonicalValue(item);
    }
    return out;
  }
  return value;
}

/** JSON text with object keys in sorted order at every depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalValue(value)) ?? "null";
}

/** "sha256:…" of the canonical JSON of a payload: the record digest both stores use. */
export function payloadDigest(data: unknown): string {
  return sha256Digest(canonicalJson(data));
}
