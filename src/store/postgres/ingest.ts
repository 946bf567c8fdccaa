// applyBatch on Postgres: validate every op, then write the whole batch in one transaction with
// a handful of set-based statements (unnest), so a batch is all-or-nothing and fast.
import type pg from "pg";
import { payloadDigest } from "../../core/canonical-json.js";
import { PdppError } from "../../core/errors.js";
import { encodeRecordId } from "../../core/ids.js";
import { chunkedFields, findStream, type StreamDef } from "../../core/manifest.js";
import { deletePath, getPath, setPath } from "../../core/projection.js";
import { normalizeTime } from "../../core/time.js";
import { primaryKeyProblem, validateRecord } from "../../core/validate-record.js";
import type { IngestOp, IngestResult } from "../store.js";
import { getConnection, getManifest } from "./admin-ops.js";
import { inTransaction } from "./pool.js";
import { currentSearchFields, deleteLexRows, writeSearchRows } from "./search-write.js";
import {
  finalStamps,
  loadOldStates,
  type StampChange,
  type StampColumns,
  writeStampEvents,
} from "./stamp-write.js";
import { insertTextFields, type TextFieldRow, textFieldRow } from "./text-store.js";

interface PreparedOp {
  op: "upsert" | "delete";
  recordId: string;
  data: Record<string, unknown>;
  digest: string;
  time: string | null;
}

// Postgres text and jsonb cannot hold U+0000 nor an unpaired UTF-16 surrogate; SQLite can.
// Rejecting the op (with the reason) keeps the batch honest instead of failing it or altering data.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what Postgres cannot store
const UNSTORABLE_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

function hasUnstorableText(value: unknown): boolean {
  if (typeof value === "string") return UNSTORABLE_RE.test(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).some(([k, v]) => UNSTORABLE_RE.test(k) || hasUnstorableText(v));
  }
  return false;
}

function prepare(stream: StreamDef, op: IngestOp): PreparedOp {
  if (op.op !== "upsert" && op.op !== "delete") throw new Error('op must be "upsert" or "delete"');
  const problem = op.op === "upsert" ? validateRecord(op.data, stream) : primaryKeyProblem(op.data, stream);
  if (problem) throw new Error(problem);
  if (hasUnstorableText(op.data)) {
    throw new Error("text containing U+0000 (NUL) or an unpaired surrogate cannot be stored on Postgres");
  }
  const recordId = encodeRecordId(stream.primary_key.map((k) => getPath(op.data, k)));
  if (op.op === "delete") {
    // A tombstone keeps only the primary key (what changes_since shows for a delete).
    const keyOnly: Record<string, unknown> = {};
    for (const k of stream.primary_key) setPath(keyOnly, k, getPath(op.data, k));
    return { op: "delete", recordId, data: keyOnly, digest: payloadDigest(keyOnly), time: null };
  }
  const time = stream.time_field ? normalizeTime(getPath(op.data, stream.time_field)) : null;
  return { op: "upsert", recordId, data: op.data, digest: payloadDigest(op.data), time };
}

interface Existing {
  rid: string;
  digest: string;
  deleted: boolean;
  /** The record's time: a tombstone keeps the one of the record it deletes (as on SQLite). */
  time: string | null;
}

export async function applyBatch(
  pool: pg.Pool,
  target: { connectionId: string; stream: string; ops: IngestOp[] },
): Promise<IngestResult> {
  const connection = await getConnection(pool, target.connectionId);
  if (!connection) {
    throw new PdppError("connection_not_found", `connection ${target.connectionId} does not exist.`);
  }
  const manifest = await getManifest(pool, connection.connector_key);
  const stream = manifest ? findStream(manifest, target.stream) : undefined;
  if (!stream)
    throw new PdppError(
      "stream_not_found",
      `stream ${target.stream} is not declared by ${connection.connector_key}.`,
    );

  const result: IngestResult = { added: 0, updated: 0, unchanged: 0, deleted: 0, rejected: [] };
  const prepared: PreparedOp[] = [];
  target.ops.forEach((op, index) => {
    try {
      prepared.push(prepare(stream, op));
    } catch (error) {
      result.rejected.push({ index, reason: error instanceof Error ? error.message : String(error) });
    }
  });
  if (prepared.length === 0) return result;

  await inTransaction(pool, async (client) => {
    // Writers take turns: versions are then handed out in commit order, so a changes_since reader
    // that has seen version n can never later find a smaller version committed behind it.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('pdpp_ingest:' || current_schema()))");
    const existing = await lockExisting(client, target, prepared);
    const existed = new Set(existing.keys());
    // Read under the lock a manifest change also takes: rows are indexed under the stored fields.
    const searchFields = await currentSearchFields(client, {
      connectorKey: connection.connector_key,
      stream: stream.name,
    });
    // Replay the ops in order against the current state; only each record's last write is stored.
    const finalWrites = new Map<string, PreparedOp & { slot: number }>();
    // Each record's changes in order, for its change stamps; updated rows' stored state by rid.
    const changes = new Map<string, StampChange[]>();
    const updatedRids = new Map<string, string>();
    let versionSlots = 0;
    for (const op of prepared) {
      const before = existing.get(op.recordId);
      const live = before !== undefined && !before.deleted;
      if (op.op === "upsert") {
        if (live && before.digest === op.digest) {
          result.unchanged++;
          continue;
        }
        if (live) result.updated++;
        else result.added++;
      } else {
        if (!live) {
          result.unchanged++; // deleting what is absent (or already deleted) changes nothing
          continue;
        }
        result.deleted++;
      }
      // A delete keeps the time the record had: stored, or set by an upsert earlier in this batch.
      const time = op.op === "delete" ? (before?.time ?? null) : op.time;
      existing.set(op.recordId, {
        rid: before?.rid ?? "",
        digest: op.digest,
        deleted: op.op === "delete",
        time,
      });
      // Every change takes the next version (as on SQLite); a record keeps its last one.
      versionSlots++;
      const kind = op.op === "upsert" && live ? "update" : "reset";
      const list = changes.get(op.recordId) ?? [];
      if (list.length === 0 && kind === "update" && before) updatedRids.set(op.recordId, before.rid);
      list.push({ kind, slot: versionSlots, data: op.op === "upsert" ? op.data : null });
      changes.set(op.recordId, list);
      finalWrites.delete(op.recordId);
      finalWrites.set(op.recordId, { ...op, time, slot: versionSlots });
    }
    const oldStates = await loadOldStates(client, [...updatedRids.values()]);
    await writeRecords(client, {
      stream,
      connectionId: target.connectionId,
      // New rows take their ids in the order of each record's first change, as SQLite inserts them:
      // search ranks "newest" by insertion id on both stores (core/search-ranking.ts).
      writes: [...finalWrites.values()].sort(
        (a, b) =>
          (changes.get(a.recordId)?.[0].slot ?? a.slot) - (changes.get(b.recordId)?.[0].slot ?? b.slot),
      ),
      versionSlots,
      searchFields,
      existed,
      stampsOf: (recordId, versionOf, emittedAt) => {
        const rid = updatedRids.get(recordId);
        return finalStamps({
          old: rid === undefined ? undefined : oldStates.get(rid),
          changes: changes.get(recordId) ?? [],
          versionOf,
          emittedAt,
          textPaths: chunkedFields(stream),
        });
      },
    });
    if (result.added !== result.deleted) {
      await client.query(
        `INSERT INTO stream_counts (connection_id, stream, live) VALUES ($1, $2, $3)
         ON CONFLICT (connection_id, stream) DO UPDATE SET live = stream_counts.live + EXCLUDED.live`,
        [target.connectionId, stream.name, result.added - result.deleted],
      );
    }
  });
  return result;
}

async function lockExisting(
  client: pg.PoolClient,
  target: { connectionId: string; stream: string },
  prepared: PreparedOp[],
): Promise<Map<string, Existing>> {
  const ids = [...new Set(prepared.map((p) => p.recordId))];
  const { rows } = await client.query<Existing & { record_id: string }>(
    `SELECT rid, record_id, digest, deleted, time FROM records
     WHERE connection_id = $1 AND stream = $2 AND record_id = ANY($3::text[]) FOR UPDATE`,
    [target.connectionId, target.stream, ids],
  );
  return new Map(
    rows.map((r) => [r.record_id, { rid: r.rid, digest: r.digest, deleted: r.deleted, time: r.time }]),
  );
}

async function writeRecords(
  client: pg.PoolClient,
  batch: {
    stream: StreamDef;
    connectionId: string;
    writes: (PreparedOp & { slot: number })[];
    versionSlots: number;
    /** Search fields of the stored manifest, read under the ingest lock. */
    searchFields: string[];
    /** Records stored before the batch (only they can hold stamp events to replace). */
    existed: Set<string>;
    /** A record's change-stamp columns once the batch's versions are drawn (stamp-write.ts). */
    stampsOf: (recordId: string, versionOf: (slot: number) => number, emittedAt: string) => StampColumns;
  },
): Promise<void> {
  const { stream, writes } = batch;
  if (writes.length === 0) return;
  const drawn = await client.query<{ v: string }>(
    "SELECT nextval('record_version_seq') AS v FROM generate_series(1, $1::int)",
    [batch.versionSlots],
  );
  const versions = drawn.rows.map((r) => Number(r.v)).sort((a, b) => a - b);
  const emittedAt = new Date().toISOString();
  const textPaths = chunkedFields(stream);
  const stored = writes.map((w) => {
    if (w.op === "delete" || textPaths.length === 0) return w.data;
    const copy = structuredClone(w.data);
    for (const path of textPaths) if (typeof getPath(copy, path) === "string") deletePath(copy, path);
    return copy;
  });
  const versionOf = (slot: number) => versions[slot - 1];
  const stamped = writes.map((w) => batch.stampsOf(w.recordId, versionOf, emittedAt));
  // A tombstone keeps its time so a grant's time range still hides it (the replay above set it).
  const { rows } = await client.query<{ rid: string; record_id: string }>(
    `INSERT INTO records (connection_id, stream, record_id, emitted_at, time, version, digest, deleted, payload,
                         stamps, base_version, base_emitted_at)
     SELECT $1, $2, record_id, $8, time, version, digest, deleted, payload, stamps, base_version, base_emitted_at
     FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[], $7::jsonb[], $9::bigint[],
                 $10::jsonb[], $11::bigint[], $12::text[])
       AS t(record_id, time, digest, deleted, payload, version, stamps, base_version, base_emitted_at)
     ON CONFLICT (connection_id, stream, record_id) DO UPDATE SET
       emitted_at = EXCLUDED.emitted_at,
       time = EXCLUDED.time,
       version = EXCLUDED.version, digest = EXCLUDED.digest, deleted = EXCLUDED.deleted,
       payload = EXCLUDED.payload, stamps = EXCLUDED.stamps, base_version = EXCLUDED.base_version,
       base_emitted_at = EXCLUDED.base_emitted_at
     RETURNING rid, record_id`,
    [
      batch.connectionId,
      stream.name,
      writes.map((w) => w.recordId),
      writes.map((w) => w.time),
      writes.map((w) => w.digest),
      writes.map((w) => w.op === "delete"),
      stored.map((s) => JSON.stringify(s)),
      emittedAt,
      writes.map((w) => versions[w.slot - 1]),
      stamped.map((c) => (c.stamps === null ? null : JSON.stringify(c.stamps))),
      stamped.map((c) => c.baseVersion),
      stamped.map((c) => c.baseEmittedAt),
    ],
  );
  const ridOf = new Map(rows.map((r) => [r.record_id, r.rid]));
  const rids = rows.map((r) => r.rid);
  await client.query("DELETE FROM text_fields WHERE rid = ANY($1::bigint[])", [rids]);
  await client.query("DELETE FROM search_docs WHERE rid = ANY($1::bigint[])", [rids]);
  await deleteLexRows(client, stream.name, rids);
  await writeStampEvents(client, {
    stream: stream.name,
    rows: writes.flatMap((w, i) =>
      batch.existed.has(w.recordId) || stamped[i].stamps !== null
        ? [{ rid: ridOf.get(w.recordId) as string, stamps: stamped[i].stamps }]
        : [],
    ),
  });

  const texts: TextFieldRow[] = [];
  const indexed: { rid: string; data: Record<string, unknown> }[] = [];
  for (const write of writes) {
    if (write.op === "delete") continue;
    const rid = ridOf.get(write.recordId) as string;
    for (const path of textPaths) {
      const value = getPath(write.data, path);
      if (typeof value === "string") texts.push(textFieldRow(rid, path, value));
    }
    indexed.push({ rid, data: write.data });
  }
  await insertTextFields(client, texts);
  await writeSearchRows(
    client,
    { stream: stream.name, connectionId: batch.connectionId, fields: batch.searchFields },
    indexed,
  );
}
