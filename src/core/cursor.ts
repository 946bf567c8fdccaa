// Opaque, URL-safe cursors sealed with AES-256-GCM: base64url(iv) + "." + base64url(ciphertext ‖ tag).
// The server alone can mint them and a client can read nothing from them (noninterference,
// 10-data-model.md): a cursor carries its own binding (query, grant, position) unreadably.
// The IV is synthetic (HMAC-SHA256 of the plaintext under a second derived key, as in SIV): the
// same payload always seals to the same bytes, so an answer that carries a cursor is a function of
// what the cursor holds, and payloads are scope-local, so two stores that differ only in what a
// grant cannot see hand out byte-identical cursors. An IV repeats only with an identical
// plaintext, which GCM tolerates (it then reveals only that equality).
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
} from "node:crypto";
import { PdppError } from "./errors.js";

/** Longest cursor we even try to open (a real one is a few hundred chars). */
export const MAX_CURSOR_CHARS = 4096;

export type CursorPayload = Record<string, unknown>;

// KeyObjects, not Buffers: handing OpenSSL a raw key makes it set the key up again on every
// cipher and HMAC (31 µs a cursor measured, against 7 µs with KeyObjects; same bytes out), and a
// page mints a cursor per resume point.
interface CursorKeys {
  enc: KeyObject;
  iv: KeyObject;
}

const keyCache = new Map<string, CursorKeys>();

/** Two independent 256-bit keys derived (HKDF-SHA256) from the store's cursor secret. */
function keysOf(secret: string): CursorKeys {
  let keys = keyCache.get(secret);
  if (!keys) {
    const derive = (info: string) =>
      createSecretKey(Buffer.from(hkdfSync("sha256", secret, "pdpp-cursor", info, 32)));
    keys = { enc: derive("aes-256-gcm key"), iv: derive("synthetic iv key") };
    if (keyCache.size > 16) keyCache.clear();
    keyCache.set(secret, keys);
  }
  return keys;
}

export function signCursor(secret: string, payload: CursorPayload): string {
  const keys = keysOf(secret);
  const plain = Buffer.from(JSON.stringify(payload), "utf8");
  const iv = createHmac("sha256", keys.iv).update(plain).digest().subarray(0, 12);
  const cipher = createCipheriv("aes-256-gcm", keys.enc, iv);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

function invalidCursor(param: string): PdppError {
  return new PdppError(
    "invalid_cursor",
    `${param} is not a cursor this server issued for this request; drop it to start over.`,
    { param },
  );
}

/**
 * Open a cursor and return its payload. Any tampering, truncation or foreign key is
 * `invalid_cursor` (GCM's tag check). `param` names the query parameter.
 */
export function verifyCursor(secret: string, cursor: string, param = "cursor"): CursorPayload {
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS) {
    throw invalidCursor(param);
  }
  const dot = cursor.indexOf(".");
  if (dot <= 0 || dot !== cursor.lastIndexOf(".")) throw invalidCursor(param);
  const ivText = cursor.slice(0, dot);
  const sealedText = cursor.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(ivText) || !/^[A-Za-z0-9_-]+$/.test(sealedText)) throw invalidCursor(param);
  const iv = Buffer.from(ivText, "base64url");
  const sealed = Buffer.from(sealedText, "base64url");
  if (iv.length !== 12 || sealed.length <= 16) throw invalidCursor(param);
  let payload: unknown;
  try {
    // GCM authenticates: any tampering, truncation or foreign key fails in final().
    const decipher = createDecipheriv("aes-256-gcm", keysOf(secret).enc, iv);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    payload = JSON.parse(plain.toString("utf8"));
  } catch {
    throw invalidCursor(param);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) throw invalidCursor(param);
  return payload as CursorPayload;
}

/** A cursor that verified but whose payload does not hold what its route expects. */
export function malformedCursor(param = "cursor"): PdppError {
  return new PdppError("invalid_cursor", `${param} is malformed; drop it to start over.`, { param });
}

/**
 * A short stable hash of whatever a cursor must stay bound to (stream, sort, filters, fields,
 * grant…): a cursor replayed with other parameters or by another grant no longer matches.
 */
export function fingerprint(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);
}

/** Verify and check the cursor kind and binding in one step. */
export function openBoundCursor(
  secret: string,
  cursor: string,
  options: { kind: string; fingerprint: string; param?: string },
): CursorPayload {
  const param = options.param ?? "cursor";
  const payload = verifyCursor(secret, cursor, param);
  if (payload.k !== options.kind || payload.f !== options.fingerprint) {
    throw new PdppError(
      "invalid_cursor",
      `${param} was issued for a different request; repeat the original parameters or drop ${param}.`,
      { param },
    );
  }
  return payload;
}

/**
 * A cursor error that names what the cursor was meant to continue (e.g. `field body of record
 * cin_…/messages:a1`). Only for targets the caller has already been shown to see: a hidden
 * record answers its not-found error instead, so naming never reveals anything.
 */
export function namedCursorError(error: unknown, target: string): unknown {
  if (!(error instanceof PdppError) || (error.code !== "invalid_cursor" && error.code !== "stale_cursor"))
    return error;
  return new PdppError(error.code, `${error.message} (cursor for ${target})`, {
    param: error.param,
    details: error.details,
  });
}
