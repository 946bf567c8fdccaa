// Identities and safe names (10-data-model.md): record_id encoding, self-contained ids, name checks.
import { createHash, randomBytes } from "node:crypto";
import { PdppError } from "./errors.js";

export const CONNECTOR_KEY_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const STREAM_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;
export const FIELD_SEGMENT_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const CONNECTION_ID_RE = /^cin_[0-9a-f]{12}$/;
export const GRANT_ID_RE = /^grt_[0-9a-f]{16}$/;
export const MAX_SAFE_NAME_LENGTH = 512;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what we reject
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a segment is unsafe, or null when it is safe. Pure; callers choose the error code. */
export function unsafeNameReason(value: unknown): string | null {
  if (typeof value !== "string") return "must be a string";
  if (value.length === 0) return "must not be empty";
  if (value.length > MAX_SAFE_NAME_LENGTH) return `must be at most ${MAX_SAFE_NAME_LENGTH} characters`;
  if (value.includes("/")) return "must not contain '/'";
  if (value.includes("\\")) return "must not contain '\\'";
  if (CONTROL_RE.test(value)) return "must not contain control characters";
  if (LONE_SURROGATE_RE.test(value)) return "must be well-formed Unicode (no unpaired surrogates)";
  if (value === "." || value === "..") return "must not be '.' or '..'";
  return null;
}

/** The safe-name check applied to every id segment, stream, connection id and field-path segment. */
export function requireSafeName(
  value: unknown,
  what: string,
  options: { code?: "invalid_id" | "invalid_request"; param?: string } = {},
): string {
  const reason = unsafeNameReason(value);
  if (reason) {
    throw new PdppError(options.code ?? "invalid_id", `${what} ${reason}.`, { param: options.param });
  }
  return value as string;
}

export function isConnectorKey(value: string): boolean {
  return CONNECTOR_KEY_RE.test(value);
}
export function isStreamName(value: string): boolean {
  return STREAM_NAME_RE.test(value);
}
export function isFieldPath(value: string): boolean {
  return value.split(".").every((segment) => FIELD_SEGMENT_RE.test(segment));
}
/**
 * A stream as named by a caller: bare `messages` (every connector's stream of that name) or
 * qualified `connector_key:messages` (one connector's). Null when it is neither.
 */
export function parseStreamName(value: string): { connectorKey: string | null; stream: string } | null {
  const colon = value.indexOf(":");
  if (colon < 0) return isStreamName(value) ? { connectorKey: null, stream: value } : null;
  const connectorKey = value.slice(0, colon);
  const stream = value.slice(colon + 1);
  return isConnectorKey(connectorKey) && isStreamName(stream) ? { connectorKey, stream } : null;
}

export function qualifiedStreamName(connectorKey: string, stream: string): string {
  return `${connectorKey}:${stream}`;
}

export function isConnectionId(value: string): boolean {
  return CONNECTION_ID_RE.test(value);
}

// ---------------------------------------------------------------------------------------------
// record_id encoding: reversible percent-encoding of each primary-key part, parts joined by `~`.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters must be percent-encoded
const MUST_ENCODE_RE = /[%/\\~"\s\u0000-\u001f\u007f-\u009f]/gu;

function encodeChar(ch: string): string {
  return Array.from(Buffer.from(ch, "utf8"))
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
    .join("");
}

/** Turn one primary-key value into its string form (objects are not valid key parts). */
export function keyPartToString(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
    return String(value);
  throw new PdppError("invalid_request", "primary-key values must be strings, numbers or booleans.");
}

export function encodeKeyPart(part: string): string {
  if (part === "." || part === "..") return part.replace(/\./g, "%2E");
  return part.replace(MUST_ENCODE_RE, encodeChar);
}

export function encodeRecordId(parts: readonly unknown[]): string {
  if (parts.length === 0) throw new PdppError("invalid_request", "a primary key needs at least one part.");
  return parts.map((part) => encodeKeyPart(keyPartToString(part))).join("~");
}

export function decodeRecordId(recordId: string): string[] {
  return recordId.split("~").map((part) => decodeURIComponent(part));
}

// ---------------------------------------------------------------------------------------------
// Self-contained ids: `{connection_id}/{stream}:{record_id}`; legacy: `{stream}:{record_id}`.

export interface ParsedRecordRef {
  connectionId: string | null;
  stream: string;
  recordId: string;
}

export function formatRecordRef(connectionId: string, stream: string, recordId: string): string {
  return `${connectionId}/${stream}:${recordId}`;
}

/** Parse an id as printed by search/fetch. Throws `invalid_id` (before any I/O) on anything malformed. */
export function parseRecordRef(id: unknown): ParsedRecordRef {
  if (typeof id !== "string" || id.length === 0) {
    throw new PdppError("invalid_id", "id must be a non-empty string like cin_…/stream:record_id.", {
      param: "id",
    });
  }
  let connectionId: string | null = null;
  let rest = id;
  const slash = id.indexOf("/");
  if (slash >= 0) {
    connectionId = id.slice(0, slash);
    rest = id.slice(slash + 1);
    requireSafeName(connectionId, "the connection part of id", { param: "id" });
    if (!isConnectionId(connectionId)) {
      throw new PdppError(
        "invalid_id",
        "the connection part of id must look like cin_ followed by 12 hex digits.",
        {
          param: "id",
        },
      );
    }
  }
  const colon = rest.indexOf(":");
  if (colon <= 0) {
    throw new PdppError(
      "invalid_id",
      "id must be {connection_id}/{stream}:{record_id} or {stream}:{record_id}.",
      {
        param: "id",
      },
    );
  }
  const stream = rest.slice(0, colon);
  const recordId = rest.slice(colon + 1);
  requireSafeName(stream, "the stream part of id", { param: "id" });
  requireSafeName(recordId, "the record part of id", { param: "id" });
  if (!isStreamName(stream)) {
    throw new PdppError("invalid_id", "the stream part of id is not a valid stream name.", { param: "id" });
  }
  return { connectionId, stream, recordId };
}

// ---------------------------------------------------------------------------------------------
// Generated identities.

export function connectionIdFor(connectorKey: string, accountLabel: string): string {
  const hash = createHash("sha256").update(`${connectorKey}\n${accountLabel}`).digest("hex");
  return `cin_${hash.slice(0, 12)}`;
}

export function newGrantId(): string {
  return `grt_${randomBytes(8).toString("hex")}`;
}

export const OWNER_TOKEN_PREFIX = "pdpp_ot_";
export const CLIENT_TOKEN_PREFIX = "pdpp_ct_";

export function newToken(kind: "owner" | "client"): string {
  return `${kind === "owner" ? OWNER_TOKEN_PREFIX : CLIENT_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function sha256Digest(text: string | Buffer): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
