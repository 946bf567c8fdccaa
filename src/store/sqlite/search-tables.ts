// One FTS5 table per (connector, stream): a scope's query walks only its own stream's matches
// (a shared index made a small stream's query walk every other stream's matches too), and a scope
// that sees every connection of its stream is ranked from the index alone, without a join.
import type { StreamDef } from "../../core/manifest.js";
import { getPath, setPath } from "../../core/projection.js";
import type { SqliteDb } from "./db.js";
import { indexText } from "./search-text.js";

// FTS5 tokens are produced by core code (index terms, core/search-analysis.ts, joined by spaces).
// The `ascii` tokenizer splits them exactly there and changes nothing else (terms are already
// folded; it only folds ASCII case and keeps every non-ASCII character), so the index holds core's
// terms byte for byte, as Postgres does. unicode61 folded them again (ς → σ), which Postgres did not.
const FTS_TOKENIZER = "ascii";
export const FTS_COLUMNS = 16;
export const FTS_COLUMN_LIST = Array.from({ length: FTS_COLUMNS }, (_, i) => `c${i}`).join(", ");

// `layout` is the stream's search-field list every row of the table is indexed under: a manifest
// that changes the list re-indexes the stream in the same transaction (search-reindex.ts), and
// reads map granted fields to columns through it. `mixed` is legacy (migration 3 clears it).
export const SEARCH_TABLES_SQL = `CREATE TABLE search_tables (
  connector_key TEXT NOT NULL,
  stream TEXT NOT NULL,
  name TEXT NOT NULL UNIQUE,
  layout TEXT NOT NULL,
  mixed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (connector_key, stream)
)`;

export interface SearchTableInfo {
  name: string;
  layout: string;
  mixed: number;
}

/** The search fields a stream indexes, as stored in `layout`. */
export function searchLayout(search: string[] | undefined): string {
  return JSON.stringify((search ?? []).slice(0, FTS_COLUMNS));
}

/** The fields of a stored layout, in column order (column i holds field i). */
export function layoutFields(info: SearchTableInfo): string[] {
  return JSON.parse(info.layout) as string[];
}

/**
 * The FTS table of a stream, or null when nothing was ever indexed for it (read on every call:
 * another process may have created or marked it).
 */
export function searchTable(db: SqliteDb, connectorKey: string, stream: string): SearchTableInfo | null {
  const row = db
    .stmt("SELECT name, layout, mixed FROM search_tables WHERE connector_key = ? AND stream = ?")
    .get(connectorKey, stream) as SearchTableInfo | undefined;
  return row ?? null;
}

/**
 * The FTS table of a stream, created on first use with the given layout (call inside the write
 * transaction). An existing table keeps its layout: the caller indexes rows under that one.
 */
export function ensureSearchTable(
  db: SqliteDb,
  target: { connectorKey: string; stream: string; search: string[] | undefined },
): SearchTableInfo {
  const layout = searchLayout(target.search);
  const existing = searchTable(db, target.connectorKey, target.stream);
  if (existing) return existing;
  const next = (db.stmt("SELECT count(*) AS n FROM search_tables").get() as { n: number }).n + 1;
  // Generated names only: connector keys and stream names never reach SQL text.
  const name = `search_fts_${next}`;
  createSearchFts(db, name);
  db.stmt("INSERT INTO search_tables (connector_key, stream, name, layout) VALUES (?, ?, ?, ?)").run(
    target.connectorKey,
    target.stream,
    name,
    layout,
  );
  return { name, layout, mixed: 0 };
}

/** Create one stream's (empty) FTS5 table. */
export function createSearchFts(db: SqliteDb, name: string): void {
  db.raw.exec(
    `CREATE VIRTUAL TABLE ${name} USING fts5(${FTS_COLUMN_LIST}, content='', contentless_delete=1, tokenize="${FTS_TOKENIZER}")`,
  );
}

/** Every FTS table of a connector (for removing a connection's rows). */
export function connectorSearchTables(db: SqliteDb, connectorKey: string): string[] {
  return (
    db.stmt("SELECT name FROM search_tables WHERE connector_key = ?").all(connectorKey) as { name: string }[]
  ).map((r) => r.name);
}

/** Index text per FTS column: column i holds the stream's query.search[i]; null when none. */
export function searchValues(data: Record<string, unknown>, stream: StreamDef): (string | null)[] | null {
  return searchValuesFor(data, (stream.query?.search ?? []).slice(0, FTS_COLUMNS));
}

/** Index text per FTS column for a layout's fields; null when no field holds text. */
export function searchValuesFor(data: Record<string, unknown>, fields: string[]): (string | null)[] | null {
  if (fields.length === 0) return null;
  const values = fields.map((f) => indexText(getPath(data, f)) || null);
  return values.some((v) => v !== null) ? values : null;
}

/**
 * The values to index for a written row under the table's layout: the writer's own when it used
 * the same field list, else recomputed from the stored payload and texts (a writer holding an
 * older manifest than the one the table was re-indexed for).
 */
export function valuesForTable(
  info: SearchTableInfo,
  write: { search: string[] | undefined; values: (string | null)[] | null },
  stored: { payloadJson: string; texts: { path: string; text: string }[] },
): (string | null)[] | null {
  if (info.layout === searchLayout(write.search)) return write.values;
  const data = JSON.parse(stored.payloadJson) as Record<string, unknown>;
  for (const t of stored.texts) setPath(data, t.path, t.text);
  return searchValuesFor(data, layoutFields(info));
}

/** Streams of a connector that have an FTS table. */
export function connectorSearchStreams(db: SqliteDb, connectorKey: string): string[] {
  return db
    .stmt("SELECT stream FROM search_tables WHERE connector_key = ?")
    .pluck()
    .all(connectorKey) as string[];
}

/** Insert one row; only the stream's columns are bound (the rest stay empty). */
export function insertSearchRow(
  db: SqliteDb,
  target: { table: string; row: number | bigint },
  values: (string | null)[],
): void {
  const n = Math.min(values.length, FTS_COLUMNS);
  const columns = Array.from({ length: n }, (_, i) => `c${i}`).join(", ");
  db.stmt(`INSERT INTO ${target.table} (rowid, ${columns}) VALUES (?${", ?".repeat(n)})`).run(
    target.row,
    ...values.slice(0, n),
  );
}

export function deleteSearchRow(db: SqliteDb, target: { table: string; row: number | bigint }): void {
  db.stmt(`DELETE FROM ${target.table} WHERE rowid = ?`).run(target.row);
}
