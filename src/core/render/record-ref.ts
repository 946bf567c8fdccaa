// Record references at the MCP edge: wrapping search hits into self-contained ids, and resolving
// an id (+ optional connection_id argument) into the RS target — all before any RS call.
import { PdppError } from "../errors.js";
import { formatRecordRef, isConnectionId, parseRecordRef, requireSafeName } from "../ids.js";

export interface RecordTarget {
  /** The id exactly as the caller passed it (echoed back, never rewritten). */
  id: string;
  connectionId: string | null;
  stream: string;
  recordId: string;
}

/** Check a connection_id argument: safe and shaped like cin_ + 12 hex, else invalid_id. */
export function checkConnectionArg(connectionId: string | undefined): string | undefined {
  if (connectionId === undefined) return undefined;
  requireSafeName(connectionId, "connection_id", { param: "connection_id" });
  if (!isConnectionId(connectionId)) {
    throw new PdppError(
      "invalid_id",
      "connection_id must look like cin_ followed by 12 hex digits, as schema shows it.",
      {
        param: "connection_id",
      },
    );
  }
  return connectionId;
}

/**
 * Parse `id` (self-contained or legacy) and merge a connection_id argument: equal is fine, a
 * different one is `conflicting_connection_id`. Throws before any I/O.
 */
export function resolveRecordTarget(id: unknown, connectionArg?: string): RecordTarget {
  const parsed = parseRecordRef(id);
  const arg = checkConnectionArg(connectionArg);
  if (parsed.connectionId && arg && arg !== parsed.connectionId) {
    throw new PdppError(
      "conflicting_connection_id",
      `id names connection ${parsed.connectionId} but connection_id is ${arg}; pass the id alone.`,
      { param: "connection_id" },
    );
  }
  return {
    id: id as string,
    connectionId: parsed.connectionId ?? arg ?? null,
    stream: parsed.stream,
    recordId: parsed.recordId,
  };
}

export interface HitIdentity {
  id?: string | null;
  connection_id?: string | null;
  stream?: string | null;
  record_id?: string | null;
}

/**
 * The id a search result carries: an id that already has `/` stays as it is; a record hit with a
 * connection becomes self-contained; a record hit without one keeps `stream:record_id`; anything
 * that is not a record handle passes through unwrapped.
 */
export function wrapHitId(hit: HitIdentity): string {
  if (hit.id?.includes("/")) return hit.id;
  const { stream, record_id: recordId } = hit;
  const isRecord =
    typeof stream === "string" &&
    typeof recordId === "string" &&
    (() => {
      try {
        parseRecordRef(`${stream}:${recordId}`);
        return true;
      } catch {
        return false;
      }
    })();
  if (!isRecord) return hit.id ?? "";
  if (hit.connection_id && isConnectionId(hit.connection_id)) {
    return formatRecordRef(hit.connection_id, stream as string, recordId as string);
  }
  return `${stream}:${recordId}`;
}

/** True when the id already embeds its connection (so text need not print connection_id). */
export function embedsConnection(id: string): boolean {
  return id.includes("/");
}
