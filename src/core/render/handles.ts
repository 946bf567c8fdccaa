// Resource handles: base64url of a small versioned JSON naming a record (and a field window, or a
// byte range of a binary field).
// Handles are identifiers, not authority: every read still goes through the RS with the token.
import { PdppError } from "../errors.js";
import { isConnectionId, isFieldPath, isStreamName, requireSafeName } from "../ids.js";
import { WINDOW_MAX_CHARS } from "./budget.js";

export const RECORD_URI_PREFIX = "pdpp://record/";
export const WINDOW_URI_PREFIX = "pdpp://field-window/";
export const BLOB_URI_PREFIX = "pdpp://blob/";
const MAX_HANDLE_CHARS = 8192;

export interface RecordHandle {
  v: 1;
  c: string; // connection_id
  s: string; // stream
  r: string; // record_id
}

export interface WindowHandle extends RecordHandle {
  f: string; // field path
  /** Either a cursor or an offset window. */
  w: { cur: string } | { o: number; l?: number };
}

export interface BlobHandle extends RecordHandle {
  f: string; // binary field path
  o: number; // offset in bytes
  /** The digest the previous range was read at: a changed blob answers stale_cursor, never a splice. */
  d?: string;
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

export function recordUri(handle: Omit<RecordHandle, "v">): string {
  return `${RECORD_URI_PREFIX}${encode({ v: 1, c: handle.c, s: handle.s, r: handle.r })}`;
}

export function windowUri(handle: Omit<WindowHandle, "v">): string {
  return `${WINDOW_URI_PREFIX}${encode({ v: 1, c: handle.c, s: handle.s, r: handle.r, f: handle.f, w: handle.w })}`;
}

export function blobUri(handle: Omit<BlobHandle, "v">): string {
  const body = { v: 1, c: handle.c, s: handle.s, r: handle.r, f: handle.f, o: handle.o };
  return `${BLOB_URI_PREFIX}${encode(handle.d === undefined ? body : { ...body, d: handle.d })}`;
}

function bad(reason: string): PdppError {
  return new PdppError("invalid_id", `resource handle ${reason}; use a URI exactly as a tool returned it.`, {
    param: "uri",
  });
}

function decodeObject(handle: string): Record<string, unknown> {
  if (handle.length === 0 || handle.length > MAX_HANDLE_CHARS || !/^[A-Za-z0-9_-]+$/.test(handle)) {
    throw bad("is not base64url");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(handle, "base64url").toString("utf8"));
  } catch {
    throw bad("is not valid JSON");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw bad("is not an object");
  const obj = parsed as Record<string, unknown>;
  if (obj.v !== 1) throw bad("has an unknown version");
  return obj;
}

function checkRecordPart(obj: Record<string, unknown>): RecordHandle {
  const c = requireSafeName(obj.c, "handle connection", { param: "uri" });
  const s = requireSafeName(obj.s, "handle stream", { param: "uri" });
  const r = requireSafeName(obj.r, "handle record", { param: "uri" });
  if (!isConnectionId(c)) throw bad("names no valid connection");
  if (!isStreamName(s)) throw bad("names no valid stream");
  return { v: 1, c, s, r };
}

export function decodeRecordHandle(handle: string): RecordHandle {
  const obj = decodeObject(handle);
  const keys = Object.keys(obj).sort().join(",");
  if (keys !== "c,r,s,v") throw bad("has unexpected members");
  return checkRecordPart(obj);
}

export function decodeWindowHandle(handle: string): WindowHandle {
  const obj = decodeObject(handle);
  const keys = Object.keys(obj).sort().join(",");
  if (keys !== "c,f,r,s,v,w") throw bad("has unexpected members");
  const base = checkRecordPart(obj);
  const f = obj.f;
  if (typeof f !== "string" || !isFieldPath(f)) throw bad("names no valid field path");
  const w = obj.w as Record<string, unknown> | null;
  if (!w || typeof w !== "object" || Array.isArray(w)) throw bad("has no window");
  if (typeof w.cur === "string" && Object.keys(w).length === 1) {
    if (!/^[A-Za-z0-9_.~-]{1,4096}$/.test(w.cur)) throw bad("has a malformed cursor");
    return { ...base, f, w: { cur: w.cur } };
  }
  const o = w.o;
  const l = w.l;
  const okKeys = Object.keys(w).every((k) => k === "o" || k === "l");
  if (!okKeys || !Number.isInteger(o) || (o as number) < 0) throw bad("has a malformed window");
  if (l !== undefined && (!Number.isInteger(l) || (l as number) < 1 || (l as number) > WINDOW_MAX_CHARS)) {
    throw bad("has a malformed window size");
  }
  return { ...base, f, w: l === undefined ? { o: o as number } : { o: o as number, l: l as number } };
}

export function decodeBlobHandle(handle: string): BlobHandle {
  const obj = decodeObject(handle);
  const keys = Object.keys(obj).sort().join(",");
  if (keys !== "c,f,o,r,s,v" && keys !== "c,d,f,o,r,s,v") throw bad("has unexpected members");
  const base = checkRecordPart(obj);
  const { f, o, d } = obj;
  if (typeof f !== "string" || !isFieldPath(f)) throw bad("names no valid field path");
  if (!Number.isSafeInteger(o) || (o as number) < 0) throw bad("has a malformed offset");
  if (d !== undefined && (typeof d !== "string" || !/^sha256:[0-9a-f]{64}$/.test(d)))
    throw bad("has a malformed digest");
  return { ...base, f, o: o as number, ...(d === undefined ? {} : { d: d as string }) };
}

/** Split a pdpp:// URI into its kind and handle; anything else is a malformed handle. */
export function parseResourceUri(uri: string): { kind: "record" | "window" | "blob"; handle: string } {
  if (uri.startsWith(RECORD_URI_PREFIX))
    return { kind: "record", handle: uri.slice(RECORD_URI_PREFIX.length) };
  if (uri.startsWith(WINDOW_URI_PREFIX))
    return { kind: "window", handle: uri.slice(WINDOW_URI_PREFIX.length) };
  if (uri.startsWith(BLOB_URI_PREFIX)) return { kind: "blob", handle: uri.slice(BLOB_URI_PREFIX.length) };
  throw bad("has an unknown scheme");
}
