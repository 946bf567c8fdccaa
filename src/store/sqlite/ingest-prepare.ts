// The pure half of SQLite ingest: validate one op and compute everything its rows need (record id,
// digest, time, stored payload JSON, text fields, FTS values) without touching the database, so it
// can run anywhere — in applyBatch before the write lock, or in an import's worker thread.
import { payloadDigest } from "../../core/canonical-json.js";
import { PdppError } from "../../core/errors.js";
import { encodeRecordId } from "../../core/ids.js";
import { chunkedFields, type StreamDef } from "../../core/manifest.js";
import { deletePath, getPath, setPath } from "../../core/projection.js";
import { normalizeTime } from "../../core/time.js";
import { primaryKeyProblem, validateRecord } from "../../core/validate-record.js";
import type { IngestOp } from "../store.js";
import { searchValues } from "./search-tables.js";

export interface PreparedOp {
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

/** One op validated and pre-computed, or the reason it is rejected. */
export function prepareOp(op: IngestOp, stream: StreamDef): PreparedOp | { reason: string } {
  const kind = (op as { op?: unknown })?.op;
  if (kind !== "upsert" && kind !== "delete") return { reason: 'op must be "upsert" or "delete"' };
  const reason = kind === "upsert" ? validateRecord(op.data, stream) : primaryKeyProblem(op.data, stream);
  if (reason) return { reason };
  try {
    return kind === "upsert" ? prepareUpsert(op.data, stream) : prepareDelete(op.data, stream);
  } catch (error) {
    return { reason: error instanceof PdppError ? error.message : "invalid record" };
  }
}

/** Validate and pre-compute every op outside the write lock. */
export function prepareBatch(ops: IngestOp[], stream: StreamDef) {
  const rejected: { index: number; reason: string }[] = [];
  const prepared: PreparedOp[] = [];
  ops.forEach((op, index) => {
    const one = prepareOp(op, stream);
    if ("reason" in one) rejected.push({ index, reason: one.reason });
    else prepared.push(one);
  });
  return { prepared, rejected };
}

/**
 * What a prepared op depends on in its stream's definition: ops prepared elsewhere (an import's
 * worker thread) are applied only while the store's definition still has this key.
 */
export function streamDefKey(stream: StreamDef): string {
  return JSON.stringify(stream);
}
