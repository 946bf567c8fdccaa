// GET /v1/streams/{stream}/records: keyset-paginated lists fanned in over every visible
// connection (exact across connections), filters, sort, projection and counts; changes_since
// is served by ./changes.ts, the single record by ./record.ts.
//
// Decisions where 20-rs-api.md is silent:
// - Default order: the first of cursor_field, time_field, primary key that every connector of
//   the stream declares and the grant covers; newest first when it is time-like, else ascending.
// - Keyset ties are broken by (connection_id, stream, record_id) in the sort's direction; nulls
//   sort lowest. A cursor is bound to stream, connection_id, sort, filters, fields and bearer:
//   replayed with other parameters or by another bearer it is 400 invalid_cursor.
// - `count=exact` counts every matching record the bearer can see, ignoring limit and cursor.
// - pdpp extension `preview_chars` (64–16,384, here and on the single record): each text field
//   longer than it comes back cut to its first preview_chars code points, and the record gains
//   `field_previews: {path: {size_chars, digest, complete:false}}`; other fields are never cut,
//   except binary fields, which stay in the store: "" plus `{size_chars, complete:false}` (no
//   digest). The full text stays readable through the field-window endpoint. Not part of the cursor
//   binding (it changes presentation, not which records a page holds).
import type { Hono } from "hono";
import {
  fingerprint,
  malformedCursor,
  namedCursorError,
  openBoundCursor,
  signCursor,
} from "../../core/cursor.js";
import { parseFilterEntries, resolveFilters } from "../../core/filters.js";
import type { ListEnvelope, WireRecord } from "../../core/wire.js";
import type { ListPosition } from "../../store/store.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { fieldsParam, previewCharsParam, resumePointsParam, sortParam } from "../read-params.js";
import { connectionNames, cursorBearer, openStreamRead, streamScopes, toWireRecord } from "../render.js";
import { changesPage } from "./changes.js";
import { registerRecord } from "./record.js";

export const DEFAULT_LIST_LIMIT = 25;
export const MAX_LIST_LIMIT = 100;

const LIST_PARAMS = [
  "limit",
  "cursor",
  "sort",
  "fields",
  "count",
  "changes_since",
  "connection_id",
  "preview_chars",
  "resume_points",
] as const;

function positionOf(payload: Record<string, unknown>): ListPosition {
  const p = payload.p as { s?: unknown; c?: unknown; r?: unknown } | undefined;
  const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
  if (!p || typeof p.c !== "string" || typeof p.r !== "string" || !scalar(p.s)) throw malformedCursor();
  return { sortValue: p.s as ListPosition["sortValue"], connectionId: p.c, recordId: p.r };
}

export function registerRecords(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records", async (c) => {
    const { params, stream, connectionId } = openStreamRead(c, {
      route: "GET /v1/streams/:stream/records",
      allow: LIST_PARAMS,
      filter: true,
    });
    const { limit, warnings } = params.clampedLimit({ fallback: DEFAULT_LIST_LIMIT, max: MAX_LIST_LIMIT });
    const { scopes, catalog } = await streamScopes(c, { stream, connectionId });
    const names = connectionNames(catalog);
    if (params.has("changes_since")) {
      return changesPage(c, { params, scopes, names, stream, connectionId, limit, warnings });
    }
    const fields = fieldsParam(params, scopes);
    const sort = sortParam(params, scopes);
    const conditions = resolveFilters(parseFilterEntries(params.entries()), scopes);
    const count = params.oneOf("count", ["none", "exact"] as const, "none");
    const previewChars = previewCharsParam(params);
    const deps = c.get("deps");
    const secret = await deps.cursorSecret();
    const fp = fingerprint({
      s: stream,
      c: connectionId ?? null,
      sort,
      conditions,
      fields: fields ?? null,
      g: cursorBearer(c.get("auth")),
    });
    const rawCursor = params.single("cursor");
    let after: ListPosition | undefined;
    try {
      after = rawCursor
        ? positionOf(openBoundCursor(secret, rawCursor, { kind: "list", fingerprint: fp }))
        : undefined;
    } catch (error) {
      // The stream is visible here (streamScopes answered): the error may name it (item 11).
      throw namedCursorError(error, `the records of ${stream}`);
    }
    const result = await deps.store.listRecords(scopes, {
      conditions,
      sort,
      limit,
      after,
      countExact: count === "exact",
      fields,
      previewChars,
    });
    const resumeAfter = (r: (typeof result.records)[number]) =>
      signCursor(secret, {
        k: "list",
        f: fp,
        p: { s: r.sortValue ?? null, c: r.connectionId, r: r.recordId },
      });
    const last = result.records.at(-1);
    const nextCursor = result.hasMore && last ? resumeAfter(last) : null;
    const points = resumePointsParam(params);
    const resume =
      points === undefined
        ? {}
        : {
            resume_points: result.records
              .slice(0, points)
              .map((r, i) => (i === result.records.length - 1 ? nextCursor : resumeAfter(r))),
          };
    const body: ListEnvelope<WireRecord> = {
      object: "list",
      data: result.records.map((r) => toWireRecord(r, { names, scopes })),
      has_more: result.hasMore,
      next_cursor: nextCursor,
      meta: { ...(count === "exact" ? { count: result.count ?? 0 } : {}), ...resume, warnings },
    };
    return sendJson(c, body, { records: body.data.length });
  });
  registerRecord(app);
}
