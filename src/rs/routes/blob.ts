// GET /v1/streams/{stream}/records/{record_id}/blob: a byte range of one binary field (002 tier 4),
// grant-checked exactly as field windows are (stream, connection, time range, field grant), and
// read from the field's stored base64 text without loading the rest of it.
//
// Decisions where 20-rs-api.md is silent:
// - A binary field's value is its bytes in base64 (RFC 4648 §4, or the URL-safe §5 alphabet;
//   padding optional; no whitespace). A stored value that is not base64 has no byte ranges
//   (422 field_not_binary, as for a field that is not binary at all).
// - Ranges are in bytes: `offset_bytes` (default 0) and `limit_bytes` (default and max 24,576:
//   32,768 base64 characters, so one range plus its header stays under the adapter's 40,000-char
//   bound). `next_offset_bytes` continues; null once `complete` (nothing of the blob is left).
// - `digest` is the field's digest as everywhere (sha256 of its stored text, here the base64): it
//   changes exactly when the bytes do. `if_digest` makes the read 409 stale_cursor when the blob
//   changed since that digest was seen, so a continuation never splices two versions.
// - A range read costs one or two chunk reads (the range, and the last two characters for the
//   padding that fixes size_bytes unless the range reaches them), whatever the blob's size.
import type { Context, Hono } from "hono";
import { invalidRequest, PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { formatRecordRef } from "../../core/ids.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import type { BlobRangeAnswer } from "../../core/wire.js";
import type { FieldWindow } from "../../store/store.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { checkFieldPath } from "../read-params.js";
import { openRecordFieldRead, recordNotFound } from "../render.js";

export const BLOB_LIMITS = { defaultLimit: 24_576, maxLimit: 24_576 } as const;
const BASE64 = /^[A-Za-z0-9+/_-]*$/;

function notBinary(field: string, why: string): PdppError {
  return new PdppError("field_not_binary", `${field} ${why}`, { param: "field" });
}

/** The `field` parameter: required, declared, granted, and one of the stream's binary fields. */
function checkBinaryField(field: string | undefined, scope: StreamScope): string {
  if (!field) throw invalidRequest("field is required: the path of a binary field.", "field");
  checkFieldPath(field, [scope], "field");
  if (!(scope.stream.binary_fields ?? []).includes(field))
    throw notBinary(field, "is not a binary field; read it with field-window (read_record_field).");
  return field;
}

/** Bytes of unpadded-or-padded base64 text of `chars` characters ending in `tail`. */
function decodedSize(chars: number, tail: string): number {
  const padding = tail.endsWith("==") ? 2 : tail.endsWith("=") ? 1 : 0;
  return Math.floor(((chars - padding) * 3) / 4);
}

async function handle(c: Context<RsEnv>): Promise<Response> {
  const {
    params,
    recordId,
    scope,
    connectionId: target,
    stream,
  } = await openRecordFieldRead(c, {
    route: "GET /v1/streams/:stream/records/:record_id/blob",
    allow: ["field", "connection_id", "offset_bytes", "limit_bytes", "if_digest"],
    what: "read a binary field",
  });
  const path = checkBinaryField(params.single("field"), scope);
  const offset = params.int("offset_bytes", { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }) ?? 0;
  const limit = params.int("limit_bytes", { min: 1, max: BLOB_LIMITS.maxLimit }) ?? BLOB_LIMITS.defaultLimit;
  const ifDigest = params.single("if_digest");
  const store = c.get("deps").store;
  const ref = { connectionId: target, recordId, path };
  const read = async (startChars: number, endChars: number): Promise<FieldWindow> => {
    const w = await store.readFieldWindow(scope, ref, {
      kind: "range",
      offsetChars: startChars,
      limitChars: Math.max(0, endChars - startChars),
    });
    if (!w) throw recordNotFound();
    return w;
  };
  const what = `binary field ${path} of record ${formatRecordRef(target, stream, recordId)}`;
  // One read of the range's whole base64 quanta (3 bytes are 4 characters). The size in bytes
  // needs the padding, the last two characters: in that read when the range reaches the end, else
  // one more read of just those two.
  const first = Math.floor(offset / 3);
  const last = Math.ceil((offset + limit) / 3);
  let w: FieldWindow;
  try {
    w = await read(first * 4, last * 4);
  } catch (error) {
    if (error instanceof PdppError && error.code === "field_not_text")
      throw notBinary(path, "has no value on this record.");
    throw error;
  }
  const stale = (): PdppError =>
    new PdppError("stale_cursor", `${what} changed during the read; read it again.`, { param: "field" });
  let tail: string;
  if (w.endChars === w.sizeChars && w.endChars - w.startChars >= Math.min(2, w.sizeChars)) {
    tail = w.text.slice(-2);
  } else {
    const t = await read(Math.max(0, w.sizeChars - 2), w.sizeChars);
    if (t.digest !== w.digest) throw stale();
    tail = t.text;
  }
  if (ifDigest !== undefined && ifDigest !== w.digest) {
    throw new PdppError(
      "stale_cursor",
      `${what} changed since digest ${ifDigest} was read; read it again from the start (offset_bytes 0).`,
      { param: "if_digest" },
    );
  }
  const text = w.text.replace(/={1,2}$/, "");
  if (!BASE64.test(tail.replace(/={1,2}$/, "")) || !BASE64.test(text))
    throw notBinary(path, "is not stored as base64.");
  const sizeBytes = decodedSize(w.sizeChars, tail);
  if (offset > sizeBytes)
    throw invalidRequest(
      `offset_bytes is past the end of the blob (size_bytes ${sizeBytes}).`,
      "offset_bytes",
    );
  const end = Math.min(sizeBytes, offset + limit);
  const bytes = Buffer.from(text, "base64").subarray(offset - first * 3, end - first * 3);
  const mime = fieldSchemaAt(scope.stream, path)?.contentMediaType;
  const answer: BlobRangeAnswer = {
    object: "blob_range",
    record: {
      id: formatRecordRef(target, stream, recordId),
      connection_id: target,
      stream,
      record_id: recordId,
    },
    field: {
      path,
      mime_type: typeof mime === "string" ? mime : "application/octet-stream",
      size_bytes: sizeBytes,
      digest: w.digest,
    },
    range: {
      start_bytes: offset,
      end_bytes: end,
      limit_bytes: limit,
      complete: end >= sizeBytes,
      next_offset_bytes: end < sizeBytes ? end : null,
      data: bytes.toString("base64"),
    },
  };
  return sendJson(c, answer, { records: 1 });
}

export function registerBlob(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records/:record_id/blob", handle);
}
