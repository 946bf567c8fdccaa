// Canonical JSON (object keys sorted, no whitespace) so equal payloads always hash to the same digest.
import * as crypto from "node:crypto";
import { codePointLength } from "./text-chunks.js";

// One-shot hashing (Node ≥ 20.12) is several times faster than createHash for small payloads,
// which matters at 50k records/s; the output is the same "sha256:<hex>" as ids.ts sha256Digest.
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

/** "sha256:<hex>" of UTF-8 text (fast path of core/ids.ts sha256Digest). */
export function fastSha256Digest(text: string): string {
  if (oneShot) return `sha256:${oneShot("sha256", text)}`;
  return `sha256:${crypto.createHash("sha256").update(text).digest("hex")}`;
}

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
  return fastSha256Digest(canonicalJson(data));
}

/**
 * The text a field window reads (20-rs-api.md "Field window"): a string as itself, any other JSON
 * value as its canonical JSON (`json: true`), so every granted value has a window; null when the
 * field is absent or JSON null (nothing to window).
 */
export function windowText(value: unknown): { text: string; json: boolean } | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return { text: value, json: false };
  return { text: canonicalJson(value), json: true };
}

/**
 * size_chars and digest of a stored (non-chunked) field value, exactly as its field window reports
 * them: over windowText's text. Null when the field has no window (absent or null).
 */
export function windowMeta(value: unknown): { sizeChars: number; digest: string } | null {
  const found = windowText(value);
  if (found === null) return null;
  return { sizeChars: codePointLength(found.text), digest: fastSha256Digest(found.text) };
}
