// Cursors of the paged schema tool (the stream index, one stream's field list): an offset bound to
// the request and to the names it pages over. Everything in one is a function of what the grant
// sees (the visible names and the request), so it can reveal nothing hidden; the adapter mints
// it without a secret, and a forged offset only selects another page of the same visible names.
import { createHash } from "node:crypto";
import { PdppError } from "../errors.js";

const PREFIX = "sx1.";
const MAX_CURSOR_CHARS = 256;

export type SchemaPageKind = "index" | "fields";

interface SchemaCursor {
  k: SchemaPageKind;
  /** Items (streams, or fields) already shown. */
  o: number;
  /** fingerprint of the request and the visible names it pages over. */
  f: string;
}

/** A short stable hash of the request and the names a page sequence walks. */
export function pageFingerprint(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

export function mintSchemaCursor(kind: SchemaPageKind, offset: number, fingerprint: string): string {
  const body: SchemaCursor = { k: kind, o: offset, f: fingerprint };
  return `${PREFIX}${Buffer.from(JSON.stringify(body)).toString("base64url")}`;
}

function invalid(message: string): PdppError {
  return new PdppError("invalid_cursor", message, { param: "cursor" });
}

/** The cursor's shape, checked before any RS call. */
export function parseSchemaCursor(cursor: string): SchemaCursor {
  const bad = () =>
    invalid("cursor is not a schema cursor this server issued; call schema again without cursor.");
  if (cursor.length > MAX_CURSOR_CHARS || !cursor.startsWith(PREFIX)) throw bad();
  const encoded = cursor.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) throw bad();
  const bytes = Buffer.from(encoded, "base64url");
  // Only the canonical encoding: a trailing character base64url would ignore is tampering too.
  if (bytes.toString("base64url") !== encoded) throw bad();
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw bad();
  }
  const c = body as Partial<SchemaCursor> | null;
  if (
    !c ||
    (c.k !== "index" && c.k !== "fields") ||
    !Number.isSafeInteger(c.o) ||
    (c.o as number) < 1 ||
    typeof c.f !== "string"
  )
    throw bad();
  return c as SchemaCursor;
}

/** The offset a cursor resumes at, once the page sequence it must belong to is known. */
export function resumeOffset(
  cursor: SchemaCursor | undefined,
  options: { kind: SchemaPageKind; fingerprint: string; total: number; retry: string },
): number {
  if (cursor === undefined) return 0;
  if (cursor.k !== options.kind)
    throw invalid(
      `cursor pages ${cursor.k === "index" ? "the stream index" : "a field list"}; ${options.retry}.`,
    );
  if (cursor.f !== options.fingerprint || cursor.o >= options.total) {
    throw new PdppError(
      "stale_cursor",
      `cursor was issued for other arguments, or what it pages changed since; ${options.retry}.`,
      { param: "cursor" },
    );
  }
  return cursor.o;
}
