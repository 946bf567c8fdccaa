// Field windows of the SQLite store: code-point ranges and first-match windows, read from the
// chunk table for text_fields (at most two chunks per range) or from the payload for other values
// (a non-string as its canonical JSON).
import { windowText } from "../../core/canonical-json.js";
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { sha256Digest } from "../../core/ids.js";
import { chunkedFields, fieldSchemaAt } from "../../core/manifest.js";
import { setPath } from "../../core/projection.js";
import { codePointLength, findFirstMatch, sliceCodePoints, windowSpan } from "../../core/text-chunks.js";
import type { FieldWindow, WindowSelector } from "../store.js";
import type { SqliteDb } from "./db.js";
import { findVisibleRow } from "./records.js";
import { jsonPath, requireGranted } from "./scope-sql.js";
import { findInText, readText, readTextRange, textMeta } from "./text-store.js";

function notText(path: string): PdppError {
  return new PdppError("field_not_text", `field ${path} has no value on this record.`, {
    param: "field",
  });
}

/** A json_extract result as the JS value it stands for (objects/arrays come back as JSON text). */
function jsonValue(type: string | null, value: unknown): unknown {
  if (type === null || type === "null") return null;
  if (type === "true") return true;
  if (type === "false") return false;
  if (type === "object" || type === "array") return JSON.parse(value as string);
  return value;
}

export function readFieldWindow(
  db: SqliteDb,
  scope: StreamScope,
  ref: { connectionId: string; recordId: string; path: string },
  selector: WindowSelector,
): FieldWindow | null {
  requireGranted(scope, ref.path);
  jsonPath(ref.path); // validates the path before any read
  const path = ref.path;
  const row = findVisibleRow(db, scope, ref);
  if (!row) return null;
  const stream = scope.stream;
  const schema = fieldSchemaAt(stream, path);
  const mimeType = typeof schema?.contentMediaType === "string" ? schema.contentMediaType : undefined;
  const isTextField = (stream.text_fields ?? []).includes(path);
  // Binary fields live in chunks too (core/manifest.ts chunkedFields): the blob route reads ranges
  // of their stored base64 text this way.
  const meta = chunkedFields(stream).includes(path) ? textMeta(db, row.id, path) : undefined;
  if (meta) {
    const match = selector.kind === "match" ? findInText(db, row.id, { path, q: selector.q }) : null;
    const { start, end } = windowSpan(selector, meta.size_chars, match);
    return {
      sizeChars: meta.size_chars,
      digest: meta.digest,
      textLike: isTextField,
      ...(mimeType ? { mimeType } : {}),
      text: readTextRange(db, row.id, { path, start, end }),
      startChars: start,
      endChars: end,
      match,
    };
  }
  const value = db
    .stmt("SELECT json_extract(?, ?) AS v, json_type(?, ?) AS t")
    .get(row.payload, jsonPath(path), row.payload, jsonPath(path)) as {
    v: unknown;
    t: string | null;
  };
  const raw = jsonValue(value.t, value.v);
  // Text fields under this path live in the chunk table, not the payload: put them back so the
  // JSON is the whole stored value (what fetch and previews show for it).
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    for (const child of stream.text_fields ?? []) {
      if (!child.startsWith(`${path}.`) || !textMeta(db, row.id, child)) continue;
      setPath(raw as Record<string, unknown>, child.slice(path.length + 1), readText(db, row.id, child));
    }
  }
  const found = windowText(raw);
  if (found === null) throw notText(path);
  const text = found.text;
  const size = codePointLength(text);
  const match = selector.kind === "match" ? findFirstMatch([text], selector.q) : null;
  const { start, end } = windowSpan(selector, size, match);
  return {
    sizeChars: size,
    digest: sha256Digest(text),
    // A non-string value reads as its canonical JSON text (issue 9 item 3).
    textLike: isTextField && !found.json,
    ...(found.json ? { mimeType: "application/json" } : mimeType ? { mimeType } : {}),
    text: sliceCodePoints(text, start, end),
    startChars: start,
    endChars: end,
    match,
  };
}
