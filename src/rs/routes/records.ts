// GET /v1/streams/{stream}/records: keyset-paginated lists fanned in over every visible
// connection (exact across connections), filters, sort, projection, counts and changes_since.
import type { Context, Hono } from "hono";
import { fingerprint, openBoundCursor, signCursor } from "../../core/cursor.js";
import { invalidRequest, PdppError } from "../../core/errors.js";
import { parseFilterEntries, resolveFilters } from "../../core/filters.js";
import type { StreamScope } from "../../core/grant.js";
import type { ListEnvelope, Warning, WireRecord } from "../../core/wire.js";
import type { ListPosition } from "../../store/store.js";
import { noteRead, sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { fieldsParam, previewCharsParam, sortParam } from "../read-params.js";
import {
  checkConnectionParam,
  checkStreamName,
  connectionNames,
  streamScopes,
  toWireRecord,
} from "../render.js";
import { registerRecord } from "./record.js";

export const DEFAULT_LIST_LIMIT = 25;
export const MAX_LIST_LIMIT = 100;

/** `limit` 1–100; larger values are clamped with a `limit_clamped` warning rather than refused. */
export function clampedLimit(
  params: Params,
  options: { fallback: number; max: number },
): {
  limit: number;
  warnings: Warning[];
} {
  const raw = params.single("limit");
  if (raw === undefined || raw === "") return { limit: options.fallback, warnings: [] };
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1)
    throw invalidRequest(`limit must be an integer from 1 to ${options.max}.`, "limit");
  const n = Number(raw);
  if (n <= options.max) return { limit: n, warnings: [] };
  return {
    limit: options.max,
    warnings: [
      {
        code: "limit_clamped",
        message: `limit was clamped to ${options.max}.`,
        requested: n,
        applied: options.max,
      },
    ],
  };
}

function bearerKey(c: Context<RsEnv>): string {
  return c.get("auth").grantId ?? "owner";
}

function positionOf(payload: Record<string, unknown>): ListPosition {
  const p = payload.p as { s?: unknown; c?: unknown; r?: unknown } | undefined;
  const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
  if (!p || typeof p.c !== "string" || typeof p.r !== "string" || !scalar(p.s)) {
    throw new PdppError("invalid_cursor", "cursor is malformed; drop it to start over.", { param: "cursor" });
  }
  return { sortValue: p.s as ListPosition["sortValue"], connectionId: p.c, recordId: p.r };
}

async function changesPage(
  c: Context<RsEnv>,
  options: {
    params: Params;
    scopes: StreamScope[];
    names: Map<string, string>;
    stream: string;
    connectionId?: string;
    limit: number;
    warnings: Warning[];
  },
): Promise<Response> {
  const { params, scopes } = options;
  for (const p of ["sort", "cursor", "count"]) {
    if (params.has(p)) {
      throw new PdppError("unsupported_query", `${p} cannot be combined with changes_since; drop ${p}.`, {
        param: p,
      });
    }
  }
  if (params.entries().some(([k]) => k.startsWith("filter"))) {
    throw new PdppError("unsupported_query", "filters cannot be combined with changes_since; drop them.", {
      param: "filter",
    });
  }
  const deps = c.get("deps");
  const secret = await deps.cursorSecret();
  const fp = fingerprint({ s: options.stream, c: options.connectionId ?? null, g: bearerKey(c) });
  const raw = params.single("changes_since") ?? "";
  let afterVersion = 0;
  if (raw !== "beginning") {
    const payload = openBoundCursor(secret, raw, { kind: "chg", fingerprint: fp, param: "changes_since" });
    if (typeof payload.v !== "number" || !Number.isSafeInteger(payload.v) || payload.v < 0) {
      throw new PdppError("invalid_cursor", "changes_since is malformed; pass beginning to start over.", {
        param: "changes_since",
      });
    }
    afterVersion = payload.v;
  }
  const result = await deps.store.listChanges(scopes, {
    afterVersion,
    limit: options.limit,
    fields: fieldsParam(params, scopes),
    previewChars: previewCharsParam(params),
  });
  const body: ListEnvelope<WireRecord> = {
    object: "list",
    data: result.records.map((r) => toWireRecord(r, options.names)),
    has_more: result.hasMore,
    next_cursor: null,
    next_changes_since: signCursor(secret, { k: "chg", f: fp, v: result.lastVersion }),
    meta: { warnings: options.warnings },
  };
  return sendJson(c, body, { records: body.data.length });
}

export function registerRecords(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(
      ["limit", "cursor", "sort", "fields", "count", "changes_since", "connection_id", "preview_chars"],
      { filter: true },
    );
    const stream = checkStreamName(c.req.param("stream"));
    const connectionId = checkConnectionParam(params.single("connection_id") || undefined);
    noteRead(c, { route: "GET /v1/streams/:stream/records", stream, connectionId });
    const { limit, warnings } = clampedLimit(params, { fallback: DEFAULT_LIST_LIMIT, max: MAX_LIST_LIMIT });
    const { scopes, catalog } = await streamScopes(c, { stream, connectionId });
    if (params.has("changes_since")) {
      return changesPage(c, {
        params,
        scopes,
        names: connectionNames(catalog),
        stream,
        connectionId,
        limit,
        warnings,
      });
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
      g: bearerKey(c),
    });
    const rawCursor = params.single("cursor");
    const after = rawCursor
      ? positionOf(openBoundCursor(secret, rawCursor, { kind: "list", fingerprint: fp }))
      : undefined;
    const result = await deps.store.listRecords(scopes, {
      conditions,
      sort,
      limit,
      after,
      countExact: count === "exact",
      fields,
      previewChars,
    });
    const last = result.records.at(-1);
    const nextCursor =
      result.hasMore && last
        ? signCursor(secret, {
            k: "list",
            f: fp,
            p: { s: last.sortValue ?? null, c: last.connectionId, r: last.recordId },
          })
        : null;
    const names = connectionNames(catalog);
    const body: ListEnvelope<WireRecord> = {
      object: "list",
      data: result.records.map((r) => toWireRecord(r, names)),
      has_more: result.hasMore,
      next_cursor: nextCursor,
      meta: { ...(count === "exact" ? { count: result.count ?? 0 } : {}), warnings },
    };
    return sendJson(c, body, { records: body.data.length });
  });
  registerRecord(app);
}
