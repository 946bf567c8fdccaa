// Migration 2: moves full-text search from the one shared FTS table to one table per stream by
// re-indexing every live record from its stored payload and text chunks.
import type { Manifest, StreamDef } from "../../core/manifest.js";
import { setPath } from "../../core/projection.js";
import type { SqliteDb } from "./db.js";
import { ensureSearchTable, insertSearchRow, SEARCH_TABLES_SQL, searchValues } from "./search-tables.js";
import { readText, textMeta } from "./text-store.js";

const BATCH = 2000;

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
    const rows = select.all(last, BATCH) as {
      id: number;
      connector_key: string;
      stream: string;
      payload: string;
    }[];
    if (rows.length === 0) break;
    last = rows[rows.length - 1].id;
    for (const row of rows) {
      const def = defs.get(`${row.connector_key}\u0000${row.stream}`);
      if (!def?.query?.search?.length) continue;
      const data = JSON.parse(row.payload) as Record<string, unknown>;
      for (const path of def.text_fields ?? []) {
        if (def.query.search.includes(path) && textMeta(db, row.id, path))
          setPath(data, path, readText(db, row.id, path));
      }
      const values = searchValues(data, def);
      if (!values) continue;
      const table = ensureSearchTable(db, {
        connectorKey: row.connector_key,
        stream: row.stream,
        search: def.query.search,
      });
      insertSearchRow(db, { table, row: row.id }, values);
    }
  }
  db.raw.exec("DROP TABLE search_index");
}
