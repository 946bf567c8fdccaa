// The changes_since mode of GET /v1/streams/{stream}/records: upserts and tombstones in the order
// the grant observes them, after a sealed bookmark, for clients that keep a local copy in sync.
//
// Decisions where 20-rs-api.md is silent:
// - `sort`, `cursor`, `count` and filters do not combine with changes_since (400
//   unsupported_query naming the parameter): the order is the store's version order and paging
//   goes through `next_changes_since` alone. `fields`, `preview_chars`, `limit` and
//   `connection_id` do apply.
// - `next_changes_since` is always present (also on an empty page) and `next_cursor` is null; a
//   bookmark is bound to the stream, the connection_id given (or none) and the bearer.
// - Tombstones carry `deleted: true` and only the primary-key fields in `data`.
// - Resume is exact (core/changes-bookmark.ts says why, and why it reveals nothing about hidden
//   writes): a bookmark holds the version the grant observed on the last change the page
//   delivered, sealed; the next page is the visible changes above it. An empty page hands back the
//   position it was given. Bookmarks of the old format (the last record as the client saw it) are
//   accepted and resume at least once.
// - A record that leaves the grant's time range, or whose connection is deleted, sends no
//   tombstone: the grant no longer sees it, and nothing stored tells a record that left the range
//   from one that was never in it (that would take each record's history). A client that must drop
//   such records re-reads from `beginning`.
import type { Context } from "hono";
import { bookmarkPayload, bookmarkPosition } from "../../core/changes-bookmark.js";
import { fingerprint, openBoundCursor, signCursor } from "../../core/cursor.js";
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import type { ListEnvelope, Warning, WireRecord } from "../../core/wire.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import type { Params } from "../params.js";
import { fieldsParam, previewCharsParam, resumePointsParam } from "../read-params.js";
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
  let afterVersion = 0;
  if (raw !== "beginning") {
    const payload = openBoundCursor(secret, raw, { kind: "chg", fingerprint: fp, param: "changes_since" });
    const position = bookmarkPosition(payload);
    afterVersion =
      position.kind === "version"
        ? position.version
        : await deps.store.changesPositionBefore(scopes, position.emittedAt);
  }
  const result = await deps.store.listChanges(scopes, {
    afterVersion,
    limit: options.limit,
    fields: fieldsParam(params, scopes),
    previewChars: previewCharsParam(params),
  });
  const body: ListEnvelope<WireRecord> = {
    object: "list",
    data: result.records.map((r) => toWireRecord(r, { names: options.names, scopes })),
    has_more: result.hasMore,
    next_cursor: null,
    next_changes_since: signCursor(secret, bookmarkPayload(fp, result.lastVersion)),
    meta: {
      ...resumePoints(result.records, { secret, fp, count: resumePointsParam(params) }),
      warnings: options.warnings,
    },
  };
  return sendJson(c, body, { records: body.data.length });
}

/** `meta.resume_points` (read-params.ts): the bookmark after each of the page's first N changes. */
function resumePoints(
  records: { version: number }[],
  options: { secret: string; fp: string; count: number | undefined },
): { resume_points?: string[] } {
  if (options.count === undefined) return {};
  return {
    resume_points: records
      .slice(0, options.count)
      .map((r) => signCursor(options.secret, bookmarkPayload(options.fp, r.version))),
  };
}
