// Re-indexing of the SQLite search tables from stored payloads and text chunks: migration 2 (one
// table per stream), a stream whose manifest changed its search fields, and legacy mixed tables.
import type { Manifest, StreamDef } from "../../core/manifest.js";
import { setPath } from "../../core/projection.js";
import type { SqliteDb } from "./db.js";
import {
  createSearchFts,
  ensureSearchTable,
  insertSearchRow,
  SEARCH_TABLES_SQL,
  searchLayout,
  searchTable,
  searchValues,
  searchValuesFor,
} from "./search-tables.js";
import { readText, textMeta } from "./text-store.js";

const BATCH = 2000;

interface StoredRow {
  id: number;
  connector_key: string;
  stream: string;
  payload: string;
}

/** A record's payload with the chunked text of the given fields put back. */
function indexedData(db: SqliteDb, row: StoredRow, fields: string[]): Record<string, unknown> {
  const data = JSON.parse(row.payload) as Record<string, unknown>;
  for (const path of fields) if (textMeta(db, row.id, path)) setPath(data, path, readText(db, row.id, path));
  return data;
}

export function reindexSearch(db: SqliteDb): void {
  db.raw.exec(SEARCH_TABLES_SQL);
  const defs = new Map<string, StreamDef>();
  for (const row of db.raw.prepare("SELECT manifest FROM manifests").all() as { manifest: string }[]) {
    const manifest = JSON.parse(row.manifest) as Manifest;
    for (const s of manifest.streams) defs.set(`${manifest.connector_key}\u0000${s.name}`, s);
  }
  const select = db.raw.prepare(
    "SELECT id, connector_key, stream, payload FROM records WHERE deleted = 0 AND id > ? ORDER BY id LIMIT ?",
  );
  let last = 0;
  for (;;) {
    const rows = select.all(last, BATCH) as StoredRow[];
    if (rows.length === 0) break;
    last = rows[rows.length - 1].id;
    for (const row of rows) {
      const def = defs.get(`${row.connector_key}\u0000${row.stream}`);
      if (!def?.query?.search?.length) continue;
      const values = searchValues(indexedData(db, row, def.query.search), def);
      if (!values) continue;
      const table = ensureSearchTable(db, {
        connectorKey: row.connector_key,
        stream: row.stream,
        search: def.query.search,
      });
      insertSearchRow(db, { table: table.name, row: row.id }, values);
    }
  }
  db.raw.exec("DROP TABLE search_index");
}

/**
 * Bring one stream's search table to the layout of its current definition (call inside the
 * transaction that stores the manifest, so no read sees the new manifest with old rows): when the
 * search-field list changed, every live row is indexed again under the new list.
 */
export function reindexStream(
  db: SqliteDb,
  target: { connectorKey: string; stream: string; def?: StreamDef; force?: boolean },
) {
  const search = target.def?.query?.search;
  const layout = searchLayout(search);
  const info = searchTable(db, target.connectorKey, target.stream);
  if (!target.force && (info ? info.layout === layout && !info.mixed : layout === "[]")) return;
  if (info) {
    db.raw.exec(`INSERT INTO ${info.name}(${info.name}) VALUES ('delete-all')`);
    db.stmt("UPDATE search_tables SET layout = ?, mixed = 0 WHERE name = ?").run(layout, info.name);
  }
  const fields = JSON.parse(layout) as string[];
  if (fields.length === 0) return;
  const select = db.stmt(
    `SELECT id, connector_key, stream, payload FROM records
     WHERE connector_key = ? AND stream = ? AND deleted = 0 AND id > ? ORDER BY id LIMIT ?`,
  );
  let table = info?.name;
  let last = 0;
  for (;;) {
    const rows = select.all(target.connectorKey, target.stream, last, BATCH) as StoredRow[];
    if (rows.length === 0) break;
    last = rows[rows.length - 1].id;
    for (const row of rows) {
      const values = searchValuesFor(indexedData(db, row, fields), fields);
      if (!values) continue;
      table ??= ensureSearchTable(db, { ...target, search }).name;
      insertSearchRow(db, { table, row: row.id }, values);
    }
  }
}

/**
 * Migration 11 (issue 18): every search table made anew (ascii tokenizer) and indexed with pdpp's
 * analysed terms (stems, diacritics folded) under its stream's current definition.
 */
export function reindexAnalyzed(db: SqliteDb): void {
  const tables = db.raw.prepare("SELECT connector_key, stream, name FROM search_tables").all() as {
    connector_key: string;
    stream: string;
    name: string;
  }[];
  for (const t of tables) {
    // A new table: the tokenizer changed (search-tables.ts), which only CREATE sets.
    db.raw.exec(`DROP TABLE ${t.name}`);
    createSearchFts(db, t.name);
    const row = db.raw
      .prepare("SELECT manifest FROM manifests WHERE connector_key = ?")
      .get(t.connector_key) as { manifest: string } | undefined;
    const manifest = row ? (JSON.parse(row.manifest) as Manifest) : null;
    const def = manifest?.streams.find((s) => s.name === t.stream);
    reindexStream(db, { connectorKey: t.connector_key, stream: t.stream, def, force: true });
  }
}

/** Migration 3: tables whose rows were indexed under several layouts are rebuilt under the current one. */
export function reindexMixedTables(db: SqliteDb): void {
  const mixed = db.raw.prepare("SELECT connector_key, stream FROM search_tables WHERE mixed = 1").all() as {
    connector_key: string;
    stream: string;
  }[];
  for (const t of mixed) {
    const row = db.raw
      .prepare("SELECT manifest FROM manifests WHERE connector_key = ?")
      .get(t.connector_key) as { manifest: string } | undefined;
    const manifest = row ? (JSON.parse(row.manifest) as Manifest) : null;
    const def = manifest?.streams.find((s) => s.name === t.stream);
    reindexStream(db, { connectorKey: t.connector_key, stream: t.stream, def });
  }
}
