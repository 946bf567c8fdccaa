// Field windows of the SQLite store: code-point ranges and first-match windows, read from the
// chunk table for text_fields (at most two chunks per range) or from the payload for other strings.
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { sha256Digest } from "../../core/ids.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import { codePointLength, findFirstMatch, sliceCodePoints } from "../../core/text-chunks.js";
import type { FieldWindow, WindowSelector } from "../store.js";
import type { SqliteDb } from "./db.js";
import { findVisibleRow } from "./records.js";
import { jsonPath, requireGranted } from "./scope-sql.js";
import { findInText, readTextRange, textMeta } from "./text-store.js";

function notText(path: string): PdppError {
  return new PdppError("field_not_text", `field ${path} is not text; read it with fetch instead.`, {
    param: "field",
  });
}

/** [start, end) of the window for a selector, given the field size and match (if any). */
function windowBounds(
  size: number,
  selector: WindowSelector,
  match: { startChars: number; endChars: number } | null,
): { start: number; end: number } {
  if (selector.kind === "range") {
    const start = Math.min(Math.max(0, selector.offsetChars), size);
    return { start, end: Math.min(size, start + Math.max(0, selector.limitChars)) };
  }
  if (!match) return { start: 0, end: Math.min(size, selector.beforeChars + selector.afterChars) };
  return {
    start: Math.max(0, match.startChars - selector.beforeChars),
    end: Math.min(size, match.endChars + selector.afterChars),
  };
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
  const meta = isTextField ? textMeta(db, row.id, path) : undefined;
  if (meta) {
    const match = selector.kind === "match" ? findInText(db, row.id, { path, q: selector.q }) : null;
    const { start, end } = windowBounds(meta.size_chars, selector, match);
    return {
      sizeChars: meta.size_chars,
      digest: meta.digest,
      textLike: true,
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
  if (value.t !== "text" || typeof value.v !== "string") throw notText(path);
  const text = value.v;
  const size = codePointLength(text);
  const match = selector.kind === "match" ? findFirstMatch([text], selector.q) : null;
  const { start, end } = windowBounds(size, selector, match);
  return {
    sizeChars: size,
    digest: sha256Digest(text),
    textLike: isTextField,
    ...(mimeType ? { mimeType } : {}),
    text: sliceCodePoints(text, start, end),
    startChars: start,
    endChars: end,
    match,
  };
}
