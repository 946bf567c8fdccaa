// The pure half of a generic import prepared off the main thread (generic-worker.ts): one record's
// JSON text and its SQLite op, exactly as runImport, the in-process sink and applyBatch would build
// them on the main thread, and the shapes that cross the thread boundary.
import type { Manifest, StreamDef } from "../core/manifest.js";
import { type PreparedOp, prepareOp } from "../store/sqlite/ingest-prepare.js";
import type { GenericFormat } from "./generic.js";

/** A prepared op as it crosses the thread boundary: payloadJson null when it is the record's `json`. */
export type WireOp = (Omit<PreparedOp, "payloadJson"> & { payloadJson: string | null }) | { reason: string };

/** One record as it crosses the thread boundary: its JSON text and prepared op, or an error. */
export type PreparedWorkerItem =
  | { json: string; op: WireOp; position?: string }
  | { error: string; position: string };

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
  | { kind: "items"; items: PreparedWorkerItem[]; bytesRead: number }
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

/**
 * The record's JSON text (what runImport holds) and its op as applyBatch would prepare it from the
 * values the in-process sink parses back from that text (ingestDirect).
 */
export function prepareRecord(record: Record<string, unknown>, def: StreamDef): { json: string; op: WireOp } {
  const json = JSON.stringify(record);
  // The record itself when the round trip changes nothing (always, unless a number overflowed).
  const data = survivesJson(record) ? record : (JSON.parse(json) as Record<string, unknown>);
  const op: WireOp = prepareOp({ op: "upsert", data }, def);
  // The stored payload is usually the record's own JSON text: it crosses once, not twice.
  if ("payloadJson" in op && op.payloadJson === json) op.payloadJson = null;
  return { json, op };
}
