// The raw-SQL floor of an import, replayed from what the import stored: every record, text field and
// FTS row of the imported database, computed up front (payload JSON, digests, chunks and search text
// are not timed), then written into a fresh database of the store's current schema with cached
// prepared statements — the INSERTs (the records one refusing an existing key, as the store does) — in
// IMMEDIATE transactions closed by the importer's own rule (count or JSON characters). What is left
// between the importer and this floor is the importer's own work: parsing, validation, digests, and
// the JS around each statement.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { fastSha256Digest } from "../src/core/canonical-json.js";
import { setPath } from "../src/core/projection.js";
import { CHUNK_CHARS, codePointLength, splitChunks } from "../src/core/text-chunks.js";
import { SqliteDb } from "../src/store/sqlite/db.js";
import { searchValuesFor } from "../src/store/sqlite/search-tables.js";

interface ReplayRow {
  connectionId: string;
  stream: string;
  recordId: string;
  connectorKey: string;
  payload: string;
  time: string | null;
  digest: string;
  texts: { path: string; size: number; digest: string; chunks: string[] }[];
  table: string | null;
  search: (string | null)[] | null;
  chars: number;
}

function readRows(sourcePath: string): { rows: ReplayRow[]; connections: unknown[]; tables: unknown[] } {
  const source = new Database(sourcePath, { readonly: true });
  try {
    const tables = source.prepare("SELECT connector_key, stream, name, layout FROM search_tables").all() as {
      connector_key: string;
      stream: string;
      name: string;
      layout: string;
    }[];
    const tableOf = new Map(tables.map((t) => [`${t.connector_key} ${t.stream}`, t]));
    const texts = new Map<number, Map<string, string[]>>();
    for (const c of source
      .prepare(
        `SELECT record_row, path, 0 AS seq, text FROM text_fields WHERE text IS NOT NULL
         UNION ALL SELECT record_row, path, seq, text FROM text_chunks ORDER BY record_row, path, seq`,
      )
      .iterate() as Iterable<{ record_row: number; path: string; text: string }>) {
      const byPath = texts.get(c.record_row) ?? new Map<string, string[]>();
      texts.set(c.record_row, byPath);
      byPath.set(c.path, [...(byPath.get(c.path) ?? []), c.text]);
    }
    const rows: ReplayRow[] = [];
    for (const r of source
      .prepare(
        "SELECT id, connection_id, stream, record_id, connector_key, payload, time, digest FROM records WHERE deleted = 0 ORDER BY id",
      )
      .iterate() as Iterable<Record<string, string | number | null>>) {
      const own = [...(texts.get(r.id as number) ?? new Map<string, string[]>())].map(([path, parts]) => {
        const text = parts.join("");
        const chunks = splitChunks(text);
        const size =
          chunks.length <= 1
            ? codePointLength(text)
            : (chunks.length - 1) * CHUNK_CHARS + codePointLength(chunks[chunks.length - 1]!);
        return { path, text, size, digest: fastSha256Digest(text), chunks };
      });
      const table = tableOf.get(`${r.connector_key} ${r.stream}`) ?? null;
      let search: (string | null)[] | null = null;
      if (table) {
        const data = JSON.parse(r.payload as string) as Record<string, unknown>;
        for (const t of own) setPath(data, t.path, t.text);
        search = searchValuesFor(data, JSON.parse(table.layout) as string[]);
      }
      rows.push({
        connectionId: r.connection_id as string,
        stream: r.stream as string,
        recordId: r.record_id as string,
        connectorKey: r.connector_key as string,
        payload: r.payload as string,
        time: r.time as string | null,
        digest: r.digest as string,
        texts: own.map(({ path, size, digest, chunks }) => ({ path, size, digest, chunks })),
        table: table?.name ?? null,
        search,
        chars: (r.payload as string).length + own.reduce((n, t) => n + t.text.length, 0),
      });
    }
    return {
      rows,
      connections: source.prepare("SELECT * FROM connections").all(),
      tables,
    };
  } finally {
    source.close();
  }
}

/** Replay `sourcePath`'s rows as raw SQL; batches close at `batchSize` rows or `batchChars` characters. */
export function replayFloor(
  sourcePath: string,
  batch: { size: number; chars: number },
): { rows: number; seconds: number; cpuSeconds: number } {
  const { rows, connections, tables } = readRows(sourcePath);
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-floor-"));
  const db = new SqliteDb(join(dir, "floor.db"));
  try {
    const raw = db.raw;
    for (const c of connections as Record<string, string>[]) {
      raw
        .prepare(
          "INSERT INTO connections (connection_id, connector_key, display_name, created_at) VALUES (?, ?, ?, ?)",
        )
        .run(c.connection_id, c.connector_key, c.display_name, c.created_at);
    }
    const ftsInsert = new Map<string, Database.Statement>();
    for (const t of tables as { connector_key: string; stream: string; name: string; layout: string }[]) {
      raw.exec(
        `CREATE VIRTUAL TABLE ${t.name} USING fts5(${Array.from({ length: 16 }, (_, i) => `c${i}`).join(", ")}, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'")`,
      );
      const n = (JSON.parse(t.layout) as string[]).length;
      const columns = Array.from({ length: n }, (_, i) => `c${i}`).join(", ");
      ftsInsert.set(
        t.name,
        raw.prepare(`INSERT INTO ${t.name} (rowid, ${columns}) VALUES (?${", ?".repeat(n)})`),
      );
    }
    // As the store's applyBatch: the key's unique index refuses an existing record, no lookup first.
    const insert = raw.prepare(
      `INSERT INTO records (connection_id, stream, record_id, connector_key, payload, emitted_at, time, version, digest, deleted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (connection_id, stream, record_id) DO NOTHING`,
    );
    const insertField = raw.prepare(
      "INSERT INTO text_fields (record_row, path, size_chars, digest, chunk_count, text) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const insertChunk = raw.prepare(
      "INSERT INTO text_chunks (record_row, path, seq, text) VALUES (?, ?, ?, ?)",
    );
    const setVersion = raw.prepare("UPDATE store_meta SET value = ? WHERE key = 'version'");
    let version = 0;
    const write = raw.transaction((slice: ReplayRow[]) => {
      const emittedAt = new Date().toISOString();
      for (const r of slice) {
        const row = insert.run(
          r.connectionId,
          r.stream,
          r.recordId,
          r.connectorKey,
          r.payload,
          emittedAt,
          r.time,
          ++version,
          r.digest,
        ).lastInsertRowid;
        for (const t of r.texts) {
          // As the store's text-store.ts: a text of one chunk lives in its text_fields row.
          const inline = t.chunks.length === 1;
          insertField.run(row, t.path, t.size, t.digest, t.chunks.length, inline ? t.chunks[0] : null);
          if (inline) continue;
          for (let seq = 0; seq < t.chunks.length; seq++) insertChunk.run(row, t.path, seq, t.chunks[seq]);
        }
        if (r.table && r.search) ftsInsert.get(r.table)!.run(row, ...r.search);
      }
      setVersion.run(String(version));
    });
    const started = performance.now();
    const cpu = process.cpuUsage();
    let from = 0;
    let chars = 0;
    for (let i = 0; i < rows.length; i++) {
      chars += rows[i]!.chars;
      if (i + 1 - from >= batch.size || chars >= batch.chars || i === rows.length - 1) {
        write.immediate(rows.slice(from, i + 1));
        from = i + 1;
        chars = 0;
      }
    }
    const used = process.cpuUsage(cpu);
    return {
      rows: rows.length,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
