// Chunked storage of text_fields (65,536 code points per row, size and digest beside them):
// writing, reassembly, previews and the chunk reads field windows are built from. A text of one
// chunk (most: messages, titles) is stored once, in its text_fields row's `text` (migration 12),
// instead of a text_chunks row beside it: one B-tree insert a text instead of three. Reads see
// the parts alike (PARTS_SQL), whichever way a row was written.
import { fastSha256Digest } from "../../core/canonical-json.js";
import {
  CHUNK_CHARS,
  codePointLength,
  FirstMatchScanner,
  sliceCodePoints,
  splitChunks,
} from "../../core/text-chunks.js";
import type { SqliteDb } from "./db.js";

export interface TextMeta {
  path: string;
  size_chars: number;
  digest: string;
  chunk_count: number;
}

/** Store one text field of a record row (the caller removed any previous version). */
export function writeText(
  db: SqliteDb,
  recordRow: number | bigint,
  field: { path: string; text: string },
): void {
  const chunks = splitChunks(field.text);
  const size =
    chunks.length <= 1
      ? codePointLength(field.text)
      : (chunks.length - 1) * CHUNK_CHARS + codePointLength(chunks[chunks.length - 1]);
  if (chunks.length === 1) {
    db.stmt(
      "INSERT INTO text_fields (record_row, path, size_chars, digest, chunk_count, text) VALUES (?, ?, ?, ?, 1, ?)",
    ).run(recordRow, field.path, size, fastSha256Digest(field.text), field.text);
    return;
  }
  db.stmt(
    "INSERT INTO text_fields (record_row, path, size_chars, digest, chunk_count) VALUES (?, ?, ?, ?, ?)",
  ).run(recordRow, field.path, size, fastSha256Digest(field.text), chunks.length);
  const insert = db.stmt("INSERT INTO text_chunks (record_row, path, seq, text) VALUES (?, ?, ?, ?)");
  chunks.forEach((chunk, seq) => {
    insert.run(recordRow, field.path, seq, chunk);
  });
}

/**
 * The chunks of one text as (seq, text) rows, @row and @path bound: the text_fields row's own text
 * (seq 0) for a text stored inline, else its text_chunks rows.
 */
const PARTS_SQL = `(SELECT 0 AS seq, text FROM text_fields WHERE record_row = @row AND path = @path AND text IS NOT NULL
  UNION ALL SELECT seq, text FROM text_chunks WHERE record_row = @row AND path = @path)`;

export function deleteTexts(db: SqliteDb, recordRow: number | bigint): void {
  db.stmt("DELETE FROM text_chunks WHERE record_row = ?").run(recordRow);
  db.stmt("DELETE FROM text_fields WHERE record_row = ?").run(recordRow);
}

export function textMetas(db: SqliteDb, recordRow: number): TextMeta[] {
  return db
    .stmt("SELECT path, size_chars, digest, chunk_count FROM text_fields WHERE record_row = ?")
    .all(recordRow) as TextMeta[];
}

export function textMeta(db: SqliteDb, recordRow: number, path: string): TextMeta | undefined {
  return db
    .stmt("SELECT path, size_chars, digest, chunk_count FROM text_fields WHERE record_row = ? AND path = ?")
    .get(recordRow, path) as TextMeta | undefined;
}

/** Code points [start, end) of a stored text; reads only the chunks the range touches. */
export function readTextRange(
  db: SqliteDb,
  recordRow: number,
  range: { path: string; start: number; end: number },
): string {
  if (range.end <= range.start) return "";
  const first = Math.floor(range.start / CHUNK_CHARS);
  const last = Math.floor((range.end - 1) / CHUNK_CHARS);
  const rows = db
    .stmt(`SELECT text FROM ${PARTS_SQL} WHERE seq BETWEEN @first AND @last ORDER BY seq`)
    .all({ row: recordRow, path: range.path, first, last }) as { text: string }[];
  const joined = rows.map((r) => r.text).join("");
  const from = range.start - first * CHUNK_CHARS;
  // Fast path: text without surrogates needs no code-point walk.
  if (!/[\uD800-\uDFFF]/.test(joined)) return joined.slice(from, from + range.end - range.start);
  return sliceCodePoints(joined, from, from + range.end - range.start);
}

/** The whole text (all chunks in order). */
export function readText(db: SqliteDb, recordRow: number, path: string): string {
  const rows = db.stmt(`SELECT text FROM ${PARTS_SQL} ORDER BY seq`).all({ row: recordRow, path }) as {
    text: string;
  }[];
  return rows.map((r) => r.text).join("");
}

/** Iterate chunks in order (lazy: stopping early reads nothing more). */
export function* iterateChunks(db: SqliteDb, recordRow: number, path: string): Generator<string> {
  const rows = db
    .stmt(`SELECT text FROM ${PARTS_SQL} ORDER BY seq`)
    .iterate({ row: recordRow, path }) as IterableIterator<{ text: string }>;
  for (const row of rows) yield row.text;
}

/** First case-insensitive occurrence of q, scanning chunks only until it is found. */
export function findInText(db: SqliteDb, recordRow: number, field: { path: string; q: string }) {
  const scanner = new FirstMatchScanner(field.q);
  for (const chunk of iterateChunks(db, recordRow, field.path)) {
    const found = scanner.push(chunk);
    if (found) return found;
  }
  return null;
}
