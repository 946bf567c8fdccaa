// Opaque, URL-safe, HMAC-SHA256-signed cursors: base64url(JSON payload) + "." + base64url(signature).
// The server alone can mint them, so a cursor carries its own binding (query, grant, position).
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { PdppError } from "./errors.js";

/** Longest cursor we even try to verify (a real one is a few hundred chars). */
export const MAX_CURSOR_CHARS = 4096;

export type CursorPayload = Record<string, unknown>;

function signature(secret: string, body: string): Buffer {
  return createHmac("sha256", secret).update(body).digest();
}

export function signCursor(secret: string, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  return `${body}.${signature(secret, body).toString("base64url")}`;
}

function invalidCursor(param: string): PdppError {
  return new PdppError(
    "invalid_cursor",
    `${param} is not a cursor this server issued for this request; drop it to start over.`,
    { param },
  );
}

/**
 * Verify a cursor and return its payload. Any tampering, truncation or foreign signature is
 * `invalid_cursor` (the comparison is constant-time). `param` names the query parameter.
 */
export function verifyCursor(secret: string, cursor: string, param = "cursor"): CursorPayload {
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS) {
    throw invalidCursor(param);
  }
  const dot = cursor.indexOf(".");
  if (dot <= 0 || dot !== cursor.lastIndexOf(".")) throw invalidCursor(param);
  const body = cursor.slice(0, dot);
  const sig = cursor.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(sig)) throw invalidCursor(param);
  const given = Buffer.from(sig, "base64url");
  const expected = signature(secret, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor(param);
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
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
