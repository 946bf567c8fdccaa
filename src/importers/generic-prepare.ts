// The pure half of a generic import prepared off the main thread (generic-worker.ts): one record's
// JSON text and its SQLite op, exactly as runImport, the in-process sink and applyBatch would build
// them on the main thread, and the shapes that cross the thread boundary.
import type { Manifest, StreamDef } from "../core/manifest.js";
import { type PreparedOp, prepareOp } from "../store/sqlite/ingest-prepare.js";
import type { GenericFormat } from "./generic-items.js";
import { recordJson } from "./record-json.js";
import type { RunnableItem } from "./types.js";

/**
 * A chunk of items as it crosses the thread boundary, column by column: arrays of strings are cloned
 * at about a third of the cost of as many small objects (0.45 vs 1.15 µs a record to receive).
 * Items keep their order; an input error has json null and its message in `reason`.
 */
export interface PreparedChunk {
  position: (string | undefined)[];
  json: (string | null)[];
  /** The input error, or why the store rejects the record, or null. */
  reason: (string | null)[];
  recordId: string[];
  digest: string[];
  time: (string | null)[];
  /** The stored payload JSON, or null when it is the item's `json` (nothing was taken out). */
  payloadJson: (string | null)[];
  /** The chunked texts of the items that have any: item indexes, and their texts. */
  textsAt: number[];
  texts: { path: string; text: string }[][];
  /** FTS values of every item, `searchLength[i]` of them (-1: the item has none, search null). */
  search: (string | null)[];
  searchLength: number[];
  /** What record-json.ts repaired in the item, or null. */
  repaired: (string | null)[];
  /**
   * Chunks of many streams (source-worker.ts): each item's index in the targets chunkItems is given,
   * and the indexes of the items that are deletes, ascending. Absent: every item is an upsert of
   * the first target.
   */
  streamAt?: number[];
  deletes?: number[];
}

export function emptyChunk(): PreparedChunk {
  return {
    position: [],
    json: [],
    reason: [],
    recordId: [],
    digest: [],
    time: [],
    payloadJson: [],
    textsAt: [],
    texts: [],
    search: [],
    searchLength: [],
    repaired: [],
  };
}

export function pushItem(
  chunk: PreparedChunk,
  item: { json: string | null; reason: string | null; position?: string; repaired?: string | null },
) {
  chunk.position.push(item.position);
  chunk.json.push(item.json);
  chunk.reason.push(item.reason);
  chunk.repaired.push(item.repaired ?? null);
}

/** A malformed input unit (reported with its position and skipped). */
export function pushError(chunk: PreparedChunk, item: { error: string; position: string }): void {
  pushItem(chunk, { json: null, reason: item.error, position: item.position });
  pushOp(chunk, null, null);
}

export function pushOp(chunk: PreparedChunk, op: PreparedOp | null, payloadJson: string | null): void {
  chunk.recordId.push(op?.recordId ?? "");
  chunk.digest.push(op?.digest ?? "");
  chunk.time.push(op?.time ?? null);
  chunk.payloadJson.push(payloadJson);
  if (op && op.texts.length > 0) {
    chunk.textsAt.push(chunk.json.length - 1);
    chunk.texts.push(op.texts);
  }
  if (op?.search) {
    chunk.searchLength.push(op.search.length);
    for (const value of op.search) chunk.search.push(value);
  } else chunk.searchLength.push(-1);
}

/**
 * A record: its JSON text (what runImport holds) and its op as applyBatch would prepare it from the
 * values the in-process sink parses back from that text (ingestDirect), or the reason it rejects it.
 * Returns the JSON text's length.
 */
export function pushRecord(
  chunk: PreparedChunk,
  record: { data: Record<string, unknown>; position?: string },
  def: StreamDef,
): number {
  const built = recordJson(record.data);
  const json = built.json;
  // The record itself when the round trip changes nothing (always, unless a number overflowed).
  const data = survivesJson(built.data) ? built.data : (JSON.parse(json) as Record<string, unknown>);
  const op = prepareOp({ op: "upsert", data }, def);
  const item = { json, position: record.position, repaired: built.repaired };
  if ("reason" in op) {
    pushItem(chunk, { ...item, reason: op.reason });
    pushOp(chunk, null, null);
  } else {
    pushItem(chunk, { ...item, reason: null });
    // The stored payload is usually the record's own JSON text: it crosses once, not twice.
    pushOp(chunk, op, op.payloadJson === json ? null : op.payloadJson);
  }
  return json.length;
}

/**
 * The items of a received chunk, in order, each record with its prepared op under its target's
 * `defKey` (the first target, or the one `chunk.streamAt` names).
 */
export function chunkItems(
  chunk: PreparedChunk,
  targets: readonly { stream: string; defKey: string }[],
): RunnableItem[] {
  const items: RunnableItem[] = new Array(chunk.json.length);
  const deletes = chunk.deletes ?? [];
  let searchAt = 0;
  let textsNext = 0;
  let deletesNext = 0;
  for (let i = 0; i < chunk.json.length; i++) {
    const json = chunk.json[i]!;
    const reason = chunk.reason[i]!;
    const position = chunk.position[i];
    const length = chunk.searchLength[i]!;
    const search = length < 0 ? null : chunk.search.slice(searchAt, searchAt + length);
    if (length > 0) searchAt += length;
    if (json === null) {
      items[i] = { error: reason, position: position ?? "" };
      continue;
    }
    const target = targets[chunk.streamAt?.[i] ?? 0]!;
    const isDelete = deletes[deletesNext] === i;
    if (isDelete) deletesNext++;
    let texts: { path: string; text: string }[] = [];
    if (chunk.textsAt[textsNext] === i) texts = chunk.texts[textsNext++]!;
    const op: PreparedOp | { reason: string } =
      reason !== null
        ? { reason }
        : {
            kind: isDelete ? "delete" : "upsert",
            recordId: chunk.recordId[i]!,
            digest: chunk.digest[i]!,
            payloadJson: chunk.payloadJson[i] ?? json,
            time: chunk.time[i]!,
            texts,
            search,
          };
    const repaired = chunk.repaired[i];
    items[i] = {
      stream: target.stream,
      json,
      position,
      prepared: { defKey: target.defKey, op },
      ...(isDelete ? { op: "delete" as const } : {}),
      ...(repaired ? { repaired } : {}),
    };
  }
  return items;
}

/**
 * True when JSON.parse(JSON.stringify(value)) would give back equal values for every use the store
 * makes of them: only JSON types (strings, booleans, null, finite numbers, arrays, plain objects);
 * -0 becomes 0, which every digest, id, time and index text already renders as 0.
 */
export function survivesJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > 64) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!survivesJson(item, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (!survivesJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

export type PreparedWorkerMessage =
  | { kind: "def"; defKey: string }
  | { kind: "items"; chunk: PreparedChunk; bytesRead: number }
  | { kind: "done"; bytesRead: number }
  | { kind: "failed"; code: string; message: string };

export interface GenericWorkerData {
  path: string;
  format: GenericFormat;
  /** The manifest the main thread opened the source with (given or inferred), and the stream read. */
  manifest: Manifest;
  stream: string;
  /** A chunk closes at this many records or JSON characters, whichever comes first. */
  chunkRecords: number;
  chunkChars: number;
  /** Chunks that may be in flight before the worker waits for the main thread to take one. */
  window: number;
}
