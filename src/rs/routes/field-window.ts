// GET /v1/streams/{stream}/records/{record_id}/field-window: a bounded window of one field by
// cursor, offset or first match of q; cursors bind record, field, digest, grant and window.
//
// Decisions where 20-rs-api.md is silent:
// - `limit_chars` may accompany `q` (002): without before_chars/after_chars it sizes the match
//   window (half before, half after, each at most 8,192). A `q` window never exceeds the limit it
//   reports in `window.limit_chars` (the page size of the cursors minted from it): limit_chars when
//   given, else before + match + after capped at 16,384; the match is kept and the context trimmed.
// - `limit_chars` may accompany `cursor` (002): the window starts where the cursor says and takes
//   limit_chars code points (a previous_cursor still ends where the window it came from starts).
// - `offset_chars` past the end of the field → 400 invalid_request (param offset_chars);
//   `offset_chars` equal to `size_chars` is an empty window.
// - `previous_cursor` reads the `limit_chars` code points that end where this window starts
//   (never overlapping it); `next_cursor` starts where this window ends.
// - `complete` is true exactly when nothing of the field is left after the window (end ==
//   size_chars), so the last window of a paged read says complete:true with next_cursor null.
// - A stale digest is checked before any offset check (409 stale_cursor wins).
// - Cursor errors name the field and record (issue 9 item 11) once the record is known visible;
//   an invalid cursor on a hidden record answers record_not_found, as the same read without it.
// - Any non-binary field has windows (issue 9 item 3): a non-string value is windowed as its
//   canonical JSON (text_like false, mime_type application/json; size and digest over that text).
//   A binary field stays metadata + handle (422 field_not_text); so does an absent or null value.
import type { Context, Hono } from "hono";
import {
  fingerprint,
  malformedCursor,
  namedCursorError,
  openBoundCursor,
  signCursor,
} from "../../core/cursor.js";
import { invalidRequest, PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { formatRecordRef } from "../../core/ids.js";
import { codePointLength } from "../../core/text-chunks.js";
import type { FieldWindowAnswer, Warning } from "../../core/wire.js";
import type { WindowSelector } from "../../store/store.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import type { Params } from "../params.js";
import { checkFieldPath, checkQueryLength } from "../read-params.js";
import { cursorBearer, openRecordFieldRead, recordNotFound } from "../render.js";

export const WINDOW_LIMITS = {
  defaultLimit: 4096,
  maxLimit: 16_384,
  defaultContext: 2048,
  maxContext: 8192,
} as const;
const SELECTOR_PARAMS = [
  "cursor",
  "offset_chars",
  "limit_chars",
  "q",
  "before_chars",
  "after_chars",
] as const;

interface ParsedSelector {
  selector: WindowSelector;
  /** Page size of the next/previous cursors. */
  limit: number;
  /** Set when reading through a cursor: the digest the cursor was minted for. */
  cursorDigest?: string;
}

/** Apply the selector rules of 20-rs-api.md; each violation names its rule. */
function parseSelector(params: Params, options: { secret: string; binding: string }): ParsedSelector {
  if (params.has("cursor")) {
    const others = SELECTOR_PARAMS.filter((p) => p !== "cursor" && p !== "limit_chars" && params.has(p));
    if (others.length > 0)
      throw invalidRequest(`cursor excludes every other selector; drop ${others.join(", ")}.`, "cursor");
    const payload = openBoundCursor(options.secret, params.single("cursor") ?? "", {
      kind: "fw",
      fingerprint: options.binding,
    });
    const { o, l, e, d } = payload as { o?: unknown; l?: unknown; e?: unknown; d?: unknown };
    const int = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
    if (!int(o) || !int(l) || l < 1 || typeof d !== "string" || (e !== undefined && (!int(e) || e <= o))) {
      throw malformedCursor();
    }
    const asked = params.int("limit_chars", { min: 1, max: WINDOW_LIMITS.maxLimit }) ?? l;
    if (e === undefined)
      return {
        selector: { kind: "range", offsetChars: o, limitChars: asked },
        limit: asked,
        cursorDigest: d,
      };
    // `e` bounds a backward window so it ends where the current one starts (no overlap).
    const start = asked === l ? o : Math.max(0, e - asked);
    return {
      selector: { kind: "range", offsetChars: start, limitChars: e - start },
      limit: asked,
      cursorDigest: d,
    };
  }
  const limit =
    params.int("limit_chars", { min: 1, max: WINDOW_LIMITS.maxLimit }) ?? WINDOW_LIMITS.defaultLimit;
  if (params.has("q")) {
    if (params.has("offset_chars"))
      throw invalidRequest(
        "q excludes offset_chars; use before_chars/after_chars around the match.",
        "offset_chars",
      );
    const q = params.single("q") ?? "";
    if (q.length === 0) throw invalidRequest("q must not be empty.", "q");
    checkQueryLength(q);
    const sized = params.has("limit_chars")
      ? Math.min(WINDOW_LIMITS.maxContext, Math.floor(limit / 2))
      : WINDOW_LIMITS.defaultContext;
    const context = { min: 0, max: WINDOW_LIMITS.maxContext, fallback: sized };
    const beforeChars = params.int("before_chars", context) ?? sized;
    const afterChars = params.int("after_chars", context) ?? sized;
    // The window never exceeds the limit it reports: limit_chars when given, else the match with
    // its context, at most the 16,384 maximum (before/after 8,192 around a match would pass it).
    const applied = params.has("limit_chars")
      ? limit
      : Math.min(WINDOW_LIMITS.maxLimit, beforeChars + afterChars + codePointLength(q));
    return {
      selector: { kind: "match", q, beforeChars, afterChars, limitChars: applied },
      limit: applied,
    };
  }
  for (const p of ["before_chars", "after_chars"]) {
    if (params.has(p)) throw invalidRequest(`${p} needs q; pass q or use offset_chars/limit_chars.`, p);
  }
  const offsetChars = params.int("offset_chars", { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }) ?? 0;
  return { selector: { kind: "range", offsetChars, limitChars: limit }, limit };
}

/** The `field` parameter: required, declared, granted and not a binary field. */
function checkField(field: string | undefined, scope: StreamScope): string {
  if (!field) throw invalidRequest("field is required: the path of a field, e.g. body.", "field");
  checkFieldPath(field, [scope], "field");
  for (const binary of scope.stream.binary_fields ?? []) {
    if (binary === field)
      throw new PdppError("field_not_text", `${field} is a binary field; it has no text windows.`, {
        param: "field",
      });
    // An object holding a binary field would window the bytes through its JSON.
    if (binary.startsWith(`${field}.`))
      throw new PdppError(
        "field_not_text",
        `${field} holds the binary field ${binary}; window its other fields by their own paths.`,
        { param: "field" },
      );
  }
  return field;
}

async function handle(c: Context<RsEnv>): Promise<Response> {
  const {
    params,
    recordId,
    scope,
    connectionId: target,
    stream,
  } = await openRecordFieldRead(c, {
    route: "GET /v1/streams/:stream/records/:record_id/field-window",
    allow: ["field", "connection_id", ...SELECTOR_PARAMS],
    what: "read a field window",
  });
  const auth = c.get("auth");
  const path = checkField(params.single("field"), scope);
  const deps = c.get("deps");
  const secret = await deps.cursorSecret();
  const binding = fingerprint({ c: target, s: stream, r: recordId, f: path, g: cursorBearer(auth) });
  const ref = { connectionId: target, recordId, path };
  const what = `field ${path} of record ${formatRecordRef(target, stream, recordId)}`;
  let parsed: ParsedSelector;
  try {
    parsed = parseSelector(params, { secret, binding });
  } catch (error) {
    // A bad cursor names the field and record only once the record is known to be visible; a
    // hidden (or missing) record answers exactly what a read without the cursor would.
    if (!(error instanceof PdppError) || error.code !== "invalid_cursor") throw error;
    const probe = await deps.store.readFieldWindow(scope, ref, {
      kind: "range",
      offsetChars: 0,
      limitChars: 0,
    });
    if (!probe) throw recordNotFound();
    throw namedCursorError(error, what);
  }
  const w = await deps.store.readFieldWindow(scope, ref, parsed.selector);
  if (!w) throw recordNotFound();
  if (parsed.cursorDigest !== undefined && parsed.cursorDigest !== w.digest) {
    throw new PdppError(
      "stale_cursor",
      `${what} changed since this cursor was issued; restart from offset 0 (no cursor).`,
      { param: "cursor" },
    );
  }
  if (parsed.selector.kind === "range" && parsed.selector.offsetChars > w.sizeChars) {
    throw invalidRequest(
      `offset_chars is past the end of the field (size_chars ${w.sizeChars}).`,
      "offset_chars",
    );
  }
  const mint = (o: number, e?: number) =>
    signCursor(secret, {
      k: "fw",
      f: binding,
      d: w.digest,
      o,
      l: parsed.limit,
      ...(e === undefined ? {} : { e }),
    });
  const prevStart = Math.max(0, w.startChars - parsed.limit);
  const warnings: Warning[] = [];
  const q = parsed.selector.kind === "match" ? parsed.selector.q : null;
  if (q !== null && w.match === null) {
    warnings.push({
      code: "q_not_found",
      message: "q does not occur in this field; the window starts at offset 0.",
    });
  }
  const answer: FieldWindowAnswer = {
    object: "field_window",
    record: {
      id: formatRecordRef(target, stream, recordId),
      connection_id: target,
      stream,
      record_id: recordId,
    },
    field: {
      path,
      text_like: w.textLike,
      ...(w.mimeType ? { mime_type: w.mimeType } : {}),
      size_chars: w.sizeChars,
      digest: w.digest,
    },
    window: {
      text: w.text,
      start_chars: w.startChars,
      end_chars: w.endChars,
      limit_chars: parsed.limit,
      // Nothing of the field is left after this window (what a reader paging forward asks).
      complete: w.endChars >= w.sizeChars,
      next_cursor: w.endChars < w.sizeChars ? mint(w.endChars) : null,
      previous_cursor: w.startChars > 0 ? mint(prevStart, w.startChars) : null,
      match:
        q !== null && w.match ? { q, start_chars: w.match.startChars, end_chars: w.match.endChars } : null,
    },
    meta: { warnings },
  };
  return sendJson(c, answer, { records: 1 });
}

export function registerFieldWindow(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records/:record_id/field-window", handle);
}
