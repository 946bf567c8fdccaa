// Batch ingest for the SQLite store: validate every op first, then apply all valid ops in one
// IMMEDIATE transaction (all or nothing), versioning only real changes. The validation and
// pre-computation (pure, no database) is ingest-prepare.ts.

import type { Statement } from "better-sqlite3";
import type { IngestResult } from "../store.js";
import type { SqliteDb } from "./db.js";
import type { PreparedOp } from "./ingest-prepare.js";
import {
  deleteSearchRow,
  ensureSearchTable,
  FTS_COLUMNS,
  searchLayout,
  searchTable,
  valuesForTable,
} from "./search-tables.js";
import { clearStampEvents, updateStamps } from "./stamp-write.js";
import { deleteTexts, writeText } from "./text-store.js";

export { type PreparedOp, prepareBatch } from "./ingest-prepare.js";

/**
 * insertSearchRow with its statement looked up once per table and column count, not once per row
 * (building and hashing the SQL text per row cost a sixth of a JSONL import's write time).
 */
function ftsInserter(db: SqliteDb) {
  let last: { table: string; n: number; statement: Statement } | null = null;
  return (table: string, row: number | bigint, values: (string | null)[]): void => {
    const n = Math.min(values.length, FTS_COLUMNS);
    if (!last || last.table !== table || last.n !== n) {
      const columns = Array.from({ length: n }, (_, i) => `c${i}`).join(", ");
      const sql = `INSERT INTO ${table} (rowid, ${columns}) VALUES (?${", ?".repeat(n)})`;
      last = { table, n, statement: db.stmt(sql) };
    }
    last.statement.run(row, ...(values.length === n ? values : values.slice(0, n)));
  };
}

interface ExistingRow {
  id: number;
  digest: string;
  deleted: number;
}

// Deletions and recreations reset a record's change stamps (its base becomes the new version).
const RESET_STAMPS = "stamps = NULL, base_version = NULL, base_emitted_at = NULL";

/** Apply prepared ops in one transaction; returns the counts. */
export function applyPrepared(
  db: SqliteDb,
  target: { connectionId: string; connectorKey: string; stream: string; search?: string[] },
  prepared: PreparedOp[],
): Omit<IngestResult, "rejected"> {
  const counts = { added: 0, updated: 0, unchanged: 0, deleted: 0 };
  const { connectionId, connectorKey, stream } = target;
  const run = db.raw.transaction(() => {
    let version = Number(
      (db.stmt("SELECT value FROM store_meta WHERE key = 'version'").get() as { value: string }).value,
    );
    const emittedAt = new Date().toISOString();
    // The stream's FTS table: looked up once, created only when a record has search text.
    let table = searchTable(db, connectorKey, stream);
    // The writer's layout, serialised once per batch rather than once per row.
    const writerLayout = searchLayout(target.search);
    const insertFts = ftsInserter(db);
    const find = db.stmt(
      "SELECT id, digest, deleted FROM records WHERE connection_id = ? AND stream = ? AND record_id = ?",
    );
    const insert = db.stmt(
      `INSERT INTO records (connection_id, stream, record_id, connector_key, payload, emitted_at, time, version, digest, deleted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (connection_id, stream, record_id) DO NOTHING`,
    );
    // An upsert tries the INSERT first, the record key's unique index refusing a record that exists
    // (then read as before): one statement a new record instead of two. After meeting an existing
    // record the batch looks each up first again, as a re-import mostly holds existing records.
    let insertFirst = true;
    for (const op of prepared) {
      let row: number | bigint;
      const tried =
        op.kind === "upsert" && insertFirst
          ? insert.run(
              connectionId,
              stream,
              op.recordId,
              connectorKey,
              op.payloadJson,
              emittedAt,
              op.time,
              version + 1,
              op.digest,
            )
          : null;
      if (tried && tried.changes > 0) {
        version++;
        row = tried.lastInsertRowid;
        counts.added++;
      } else {
        const existing = find.get(connectionId, stream, op.recordId) as ExistingRow | undefined;
        insertFirst = existing === undefined;
        if (op.kind === "delete") {
          if (!existing || existing.deleted) {
            counts.unchanged++;
            continue;
          }
          version++;
          // The tombstone keeps its time so a grant's time range still hides it.
          db.stmt(
            `UPDATE records SET payload = ?, digest = ?, version = ?, deleted = 1, emitted_at = ?, ${RESET_STAMPS} WHERE id = ?`,
          ).run(op.payloadJson, op.digest, version, emittedAt, existing.id);
          clearStampEvents(db, existing.id);
          deleteTexts(db, existing.id);
          if (table) deleteSearchRow(db, { table: table.name, row: existing.id });
          counts.deleted++;
          continue;
        }
        if (existing && !existing.deleted && existing.digest === op.digest) {
          counts.unchanged++;
          continue;
        }
        version++;
        if (existing) {
          // An update of a live record stamps the paths it changes (read before the row is replaced).
          if (!existing.deleted) updateStamps(db, { row: existing.id, op, version, emittedAt });
          else db.stmt(`UPDATE records SET ${RESET_STAMPS} WHERE id = ?`).run(existing.id);
          db.stmt(
            "UPDATE records SET payload = ?, digest = ?, version = ?, deleted = 0, emitted_at = ?, time = ?, connector_key = ? WHERE id = ?",
          ).run(op.payloadJson, op.digest, version, emittedAt, op.time, connectorKey, existing.id);
          deleteTexts(db, existing.id);
          if (table) deleteSearchRow(db, { table: table.name, row: existing.id });
          row = existing.id;
          if (existing.deleted) counts.added++;
          else counts.updated++;
        } else {
          row = insert.run(
            connectionId,
            stream,
            op.recordId,
            connectorKey,
            op.payloadJson,
            emittedAt,
            op.time,
            version,
            op.digest,
          ).lastInsertRowid;
          counts.added++;
        }
      }
      for (const text of op.texts) writeText(db, row, text);
      if (op.search || table) {
        // Rows are indexed under the table's layout, which a newer manifest may have changed.
        if (op.search && !table)
          table = ensureSearchTable(db, { connectorKey, stream, search: target.search });
        const values = !table
          ? null
          : table.layout === writerLayout
            ? op.search
            : valuesForTable(table, { search: target.search, values: op.search }, op);
        if (table && values) insertFts(table.name, row, values);
      }
    }
    db.stmt("UPDATE store_meta SET value = ? WHERE key = 'version'").run(String(version));
    if (counts.added !== counts.deleted) {
      db.stmt(
        `INSERT INTO stream_counts (connection_id, stream, live) VALUES (?, ?, ?)
         ON CONFLICT (connection_id, stream) DO UPDATE SET live = live + excluded.live`,
      ).run(connectionId, stream, counts.added - counts.deleted);
    }
  });
  run.immediate();
  return counts;
}
