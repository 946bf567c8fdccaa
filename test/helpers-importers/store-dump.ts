// The rows an import stored in a SQLite home, for comparing two import paths byte for byte.
// Ingest times (and the stamps holding them) differ between two runs and are masked. FTS5 tables
// are compared by what they index — every (term, row, column, offset) read through fts5vocab, each
// row's sizes and the totals — not by their segment layout: the store merges an import's segments
// when writes pause (src/store/sqlite/search-merge.ts), so on a loaded machine one of two identical
// imports may merge midway and hold the same index in differently numbered segments.
import Database from "better-sqlite3";

/** Segment pages and their index: layout, not content (the averages record, id 1, is kept). */
const LAYOUT = /^search_fts_\d+_(data|idx)$/;
const AVERAGES_ID = 1;

export function dumpStore(
  path: string,
  opts: { tables: string[]; omit: string[] },
): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const names = (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND (name IN (${opts.tables.map(() => "?").join(", ")}) OR name LIKE 'search_fts_%') ORDER BY name`,
        )
        .all(...opts.tables) as { name: string }[]
    ).map((r) => r.name);
    const out: Record<string, unknown[]> = {};
    for (const name of names) {
      if (name.endsWith("_idx") && LAYOUT.test(name)) continue;
      const sql = LAYOUT.test(name)
        ? `SELECT * FROM ${name} WHERE id = ${AVERAGES_ID}`
        : `SELECT * FROM ${name}`;
      const rows = db.prepare(sql).all() as Record<string, unknown>[];
      out[name] = rows.map((row) => {
        const kept: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(row)) {
          if (key === "emitted_at" || key === "base_emitted_at" || opts.omit.includes(key)) continue;
          kept[key] =
            key === "stamps" && typeof value === "string" ? value.replace(/"\d{4}-[^"]+Z"/g, '"T"') : value;
        }
        return kept;
      });
    }
    // What each FTS table indexes, whatever its segments.
    const fts = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'search_fts_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .pluck()
      .all() as string[];
    for (const table of fts) {
      db.exec(`CREATE VIRTUAL TABLE temp.${table}_vocab USING fts5vocab(main, ${table}, instance)`);
      out[`${table} (indexed terms)`] = db
        .prepare(`SELECT term, doc, col, offset FROM temp.${table}_vocab ORDER BY term, doc, col, offset`)
        .raw()
        .all();
    }
    return out;
  } finally {
    db.close();
  }
}
