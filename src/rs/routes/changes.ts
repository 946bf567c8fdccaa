// The changes_since mode of GET /v1/streams/{stream}/records: upserts and tombstones in version
// order after a signed bookmark, for clients that keep a local copy in sync.
//
// Decisions where 20-rs-api.md is silent:
// - `sort`, `cursor`, `count` and filters do not combine with changes_since (400
//   unsupported_query naming the parameter): the order is the store's version order and paging
//   goes through `next_changes_since` alone. `fields`, `preview_chars`, `limit` and
//   `connection_id` do apply.
// - `next_changes_since` is always present (also on an empty page) and `next_cursor` is null; a
//   bookmark is bound to the stream, the connection_id given (or none) and the bearer.
// - Tombstones carry `deleted: true` and only the primary-key fields in `data`.
//
// Noninterference (10-data-model.md): a bookmark holds no store-wide version, which jumps with
// writes the grant cannot see. It holds the last record of the page as the client saw it
// (connection, record id, emitted_at, tombstone flag), sealed like every cursor; the store turns
// that anchor back into a position from visible rows alone (Store.changesPosition). So the same
// visible history gives byte-identical bookmarks and next pages whatever was written elsewhere.
// A bookmark of an empty page is the one it was given.
import type { Context } from "hono";
import { fingerprint, malformedCursor, openBoundCursor, signCursor } from "../../core/cursor.js";
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import type { ListEnvelope, Warning, WireRecord } from "../../core/wire.js";
import type { ChangesAnchor } from "../../store/store.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import type { Params } from "../params.js";
import { fieldsParam, previewCharsParam } from "../read-params.js";
import { cursorBearer, toWireRecord } from "../render.js";

const NOT_WITH_CHANGES = ["sort", "cursor", "count"] as const;

export async function changesPage(
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
  for (const p of NOT_WITH_CHANGES) {
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
  const fp = fingerprint({
    s: options.stream,
    c: options.connectionId ?? null,
    g: cursorBearer(c.get("auth")),
  });
  const raw = params.single("changes_since") ?? "";
  let anchor: ChangesAnchor | null = null;
  if (raw !== "beginning") {
    const payload = openBoundCursor(secret, raw, { kind: "chg", fingerprint: fp, param: "changes_since" });
    anchor = anchorOf(payload.a);
  }
  const afterVersion = anchor ? await deps.store.changesPosition(scopes, anchor) : 0;
  const result = await deps.store.listChanges(scopes, {
    afterVersion,
    limit: options.limit,
    fields: fieldsParam(params, scopes),
    previewChars: previewCharsParam(params),
  });
  const last = result.records.at(-1);
  const nextAnchor: ChangesAnchor | null = last
    ? {
        connectionId: last.connectionId,
        recordId: last.recordId,
        emittedAt: last.emittedAt,
        deleted: last.deleted,
      }
    : anchor;
  const body: ListEnvelope<WireRecord> = {
    object: "list",
    data: result.records.map((r) => toWireRecord(r, { names: options.names, scopes })),
    has_more: result.hasMore,
    next_cursor: null,
    next_changes_since: signCursor(secret, {
      k: "chg",
      f: fp,
      a: nextAnchor && [
        nextAnchor.connectionId,
        nextAnchor.recordId,
        nextAnchor.emittedAt,
        nextAnchor.deleted,
      ],
    }),
    meta: { warnings: options.warnings },
  };
  return sendJson(c, body, { records: body.data.length });
}

/** The anchor a verified bookmark holds (`a`: null from an empty feed, else the 4-tuple). */
function anchorOf(value: unknown): ChangesAnchor | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length !== 4) throw malformedCursor("changes_since");
  const [connectionId, recordId, emittedAt, deleted] = value as unknown[];
  if (
    typeof connectionId !== "string" ||
    typeof recordId !== "string" ||
    typeof emittedAt !== "string" ||
    typeof deleted !== "boolean"
  ) {
    throw malformedCursor("changes_since");
  }
  return { connectionId, recordId, emittedAt, deleted };
}
