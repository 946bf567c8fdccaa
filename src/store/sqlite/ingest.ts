// Batch ingest for the SQLite store: validate every op first, then apply all valid ops in one
// IMMEDIATE transaction (all or nothing), versioning only real changes.

import type { Statement } from "better-sqlite3";
import { payloadDigest } from "../../core/canonical-json.js";
import { PdppError } from "../../core/errors.js";
import { encodeRecordId } from "../../core/ids.js";
import { chunkedFields, type StreamDef } from "../../core/manifest.js";
import { deletePath, getPath, setPath } from "../../core/projection.js";
import { normalizeTime } from "../../core/time.js";
import { primaryKeyProblem, validateRecord } from "../../core/validate-record.js";
import type { IngestOp, IngestResult } from "../store.js";
import type { SqliteDb } from "./db.js";
import {
  deleteSearchRow,
  ensureSearchTable,
  FTS_COLUMNS,
  searchLayout,
  searchTable,
  searchValues,
  valuesForTable,
} from "./search-tables.js";
import { clearStampEvents, updateStamps } from "./stamp-write.js";
import { deleteTexts, writeText } from "./text-store.js";

interface PreparedOp {
  kind: "upsert" | "delete";
  recordId: string;
  digest: string;
  payloadJson: string;
  time: string | null;
  texts: { path: string; text: string }[];
  search: (string | null)[] | null;
}

function pkOnly(data: Record<string, unknown>, stream: StreamDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of stream.primary_key) setPath(out, key, getPath(data, key));
  return out;
}

/** A copy of `data` sharing everything except the objects on the way to `path` (which we mutate). */
function copyAlong(data: Record<string, unknown>, path: string): Record<string, unknown> {
  const root = { ...data };
  let current = root;
  for (const segment of path.split(".").slice(0, -1)) {
    const next = current[segment];
    if (next === null || typeof next !== "object" || Array.isArray(next)) break;
    current[segment] = { ...(next as Record<string, unknown>) };
    current = current[segment] as Record<string, unknown>;
  }
  return root;
}

function prepareUpsert(data: Record<string, unknown>, stream: StreamDef): PreparedOp {
  const recordId = encodeRecordId(stream.primary_key.map((k) => getPath(data, k)));
  const digest = payloadDigest(data);
  const time = stream.time_field ? normalizeTime(getPath(data, stream.time_field)) : null;
  const search = searchValues(data, stream);
  // Text fields and most binary fields live in chunks, not in the payload JSON, so reads never
  // parse them (core/manifest.ts chunkedFields).
  const texts: { path: string; text: string }[] = [];
  let stored = data;
  for (const path of chunkedFields(stream)) {
    const value = getPath(data, path);
    if (typeof value !== "string") continue;
    stored = copyAlong(stored, path);
    texts.push({ path, text: value });
    deletePath(stored, path);
  }
  return { kind: "upsert", recordId, digest, payloadJson: JSON.stringify(stored), time, texts, search };
}

function prepareDelete(data: Record<string, unknown>, stream: StreamDef): PreparedOp {
  const recordId = encodeRecordId(stream.primary_key.map((k) => getPath(data, k)));
  const tombstone = pkOnly(data, stream);
  return {
    kind: "delete",
    recordId,
    digest: payloadDigest(tombstone),
    payloadJson: JSON.stringify(tombstone),
    time: null,
    texts: [],
    search: null,
  };
}

/** Validate and pre-compute every op outside the write lock. */
export function prepareBatch(ops: IngestOp[], stream: StreamDef) {
  const rejected: { index: number; reason: string }[] = [];
  const prepared: PreparedOp[] = [];
  ops.forEach((op, index) => {
    const kind = (op as { op?: unknown })?.op;
    if (kind !== "upsert" && kind !== "delete") {
      rejected.push({ index, reason: 'op must be "upsert" or "delete"' });
      return;
    }
    const reason = kind === "upsert" ? validateRecord(op.data, stream) : primaryKeyProblem(op.data, stream);
    if (reason) {
      rejected.push({ index, reason });
      return;
    }
    try {
      prepared.push(kind === "upsert" ? prepareUpsert(op.data, stream) : prepareDelete(op.data, stream));
    } catch (error) {
      rejected.push({ index, reason: error instanceof PdppError ? error.message : "invalid record" });
    }
  });
  return { prepared, rejected };
}

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
    for (const op of prepared) {
      const existing = find.get(connectionId, stream, op.recordId) as ExistingRow | undefined;
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
      let row: number | bigint;
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
        row = db
          .stmt(
            `INSERT INTO records (connection_id, stream, record_id, connector_key, payload, emitted_at, time, version, digest, deleted)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
          )
          .run(
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
  });
  run.immediate();
  return counts;
}
