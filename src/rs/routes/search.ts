// GET /v1/search: full-text search over granted search fields of every visible stream (or the
// `streams` given), merged across connections, with offset cursors and honest recall.
//
// Decisions where 20-rs-api.md is silent:
// - Without `streams`, every visible stream that declares search fields is searched; `streams`
//   takes repeated or comma-separated names, each one 404 stream_not_found when hidden.
// - A `q` with no searchable word (e.g. `***` or `""`) answers an empty list with complete recall.
// - `meta.unmatched_terms` (only when non-empty, with hits or without): the query's optional and
//   required words (as written, folded) that no visible record holds in a granted search field.
// - Ranking (core/search-ranking.ts) scores every match when all are known and few, else ranks
//   window by window: each DEFAULT_RANK_WINDOW offsets are one window of candidates scored
//   together (the best by phase-1 weight not in earlier windows), so paging on reaches matches
//   past the first window instead of ending there; `meta.recall` stays candidate_window.
// - Cursors are offsets into the merged ranking, bound to q, streams, connection_id, filters and
//   bearer; paging stops at 10,000 hits (has_more false past it).
// - `meta.recall` is exactly `{complete:true, ranking_scope:"all_matches"}` or `{complete:false,
//   ranking_scope:"candidate_window", candidate_window_limit, matched_estimate?}`.
// - A hit's `title` is the granted title_field, else `{display_name} · {stream} · {time}`, or
//   `… · imported {emitted_at}` when no time is visible (issue 20 item 9): never the snippet.
//   `id` (self-contained `{connection_id}/{stream}:{record_id}`) is added for fetch.
// - pdpp extension `snippet_meta=true` (the MCP adapter's, for its content ladder): each snippet
//   also carries `size_chars` and `digest` of its whole field, as read_record_field reports them,
//   and `start_chars`/`end_chars`, the code points of the field the snippet shows (when the field
//   is text: not for a list or number shown as text).
//   The store reads them with the hit (no second lookup per hit; it was ~1 CPU-ms a search at 1M).
import type { Hono } from "hono";
import { fingerprint, malformedCursor, openBoundCursor, signCursor } from "../../core/cursor.js";
import { invalidRequest } from "../../core/errors.js";
import { parseFilterEntries, resolveFilters } from "../../core/filters.js";
import type { StreamScope } from "../../core/grant.js";
import { narrowToConnection, scopesForStream, visibleScopes } from "../../core/grant-scope.js";
import { formatRecordRef } from "../../core/ids.js";
import { parseSearchQuery } from "../../core/search-query.js";
import type { ListEnvelope, SearchHit, SearchRecall } from "../../core/wire.js";
import type { SearchResult, StoredSearchHit } from "../../store/store.js";
import { noteAnswerStreams, noteRead, sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { checkQueryLength, resumePointsParam } from "../read-params.js";
import {
  checkStreamName,
  connectionIdParam,
  connectionNames,
  cursorBearer,
  loadCatalog,
  visibleTime,
} from "../render.js";

export const DEFAULT_RANK_WINDOW = 100;
/** Deepest offset a search cursor may reach (keeps deep paging from scanning without bound). */
const MAX_SEARCH_OFFSET = 10_000;

function toHit(
  hit: StoredSearchHit,
  options: { names: Map<string, string>; scopes: StreamScope[]; snippetMeta: boolean },
): SearchHit {
  const display = options.names.get(hit.connectionId) ?? hit.connectionId;
  // A hidden time_field is neither the hit's time nor part of its fallback title.
  const time = visibleTime(options.scopes, hit);
  return {
    connection_id: hit.connectionId,
    connector_key: hit.connectorKey,
    display_name: display,
    stream: hit.stream,
    record_id: hit.recordId,
    id: formatRecordRef(hit.connectionId, hit.stream, hit.recordId),
    // Never the snippet: a title must identify the record, not repeat the match.
    // Without a visible time, the fallback says its instant is the import time, not the record's.
    title: hit.title ?? `${display} · ${hit.stream} · ${time ?? `imported ${hit.emittedAt}`}`,
    time,
    snippet: hit.snippet && {
      field: hit.snippet.field,
      text: hit.snippet.text,
      ...(options.snippetMeta
        ? {
            size_chars: hit.snippet.sizeChars,
            digest: hit.snippet.digest,
            ...(hit.snippet.startChars !== undefined && hit.snippet.endChars !== undefined
              ? { start_chars: hit.snippet.startChars, end_chars: hit.snippet.endChars }
              : {}),
          }
        : {}),
    },
    matched_fields: hit.matchedFields,
    score: hit.score,
  };
}

/** `meta.recall` exactly as 20-rs-api.md shapes it: complete recall carries nothing more. */
function recallMeta(recall: SearchResult["recall"], rankWindow: number): SearchRecall {
  if (recall.complete) return { complete: true, ranking_scope: "all_matches" };
  return {
    complete: false,
    ranking_scope: "candidate_window",
    candidate_window_limit: rankWindow,
    ...(recall.matchedEstimate !== undefined ? { matched_estimate: recall.matchedEstimate } : {}),
  };
}

export function registerSearch(app: Hono<RsEnv>): void {
  app.get("/v1/search", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(["q", "streams", "limit", "cursor", "connection_id", "snippet_meta", "resume_points"], {
      filter: true,
    });
    const q = params.single("q") ?? "";
    if (q.trim().length === 0) throw invalidRequest('q is required: words, "phrases" or prefix*.', "q");
    checkQueryLength(q);
    const streams = params.list("streams");
    const connectionId = connectionIdParam(params);
    noteRead(c, { route: "GET /v1/search", stream: streams?.length === 1 ? streams[0] : null, connectionId });
    const { limit, warnings } = params.clampedLimit({ fallback: 10, max: 100 });
    const auth = c.get("auth");
    const deps = c.get("deps");
    const catalog = await loadCatalog(deps.store, auth);
    let scopes: StreamScope[];
    if (streams !== undefined && streams.length > 0) {
      scopes = streams.flatMap((s) => scopesForStream(auth.bearer, catalog, { stream: checkStreamName(s) }));
    } else {
      scopes = visibleScopes(auth.bearer, catalog).filter((s) => (s.stream.query?.search ?? []).length > 0);
    }
    if (connectionId !== undefined) scopes = narrowToConnection(scopes, connectionId);
    const raws = parseFilterEntries(params.entries());
    if (raws.length > 0 && streams?.length !== 1) {
      throw invalidRequest("filters need exactly one stream: pass streams=<name> once.", "filter");
    }
    const conditions = resolveFilters(raws, scopes);
    const secret = await deps.cursorSecret();
    const fp = fingerprint({
      q,
      s: streams ?? null,
      c: connectionId ?? null,
      conditions,
      g: cursorBearer(auth),
    });
    const rawCursor = params.single("cursor");
    let offset = 0;
    if (rawCursor) {
      const payload = openBoundCursor(secret, rawCursor, { kind: "srch", fingerprint: fp });
      if (
        !Number.isSafeInteger(payload.o) ||
        (payload.o as number) < 0 ||
        (payload.o as number) > MAX_SEARCH_OFFSET
      ) {
        throw malformedCursor();
      }
      offset = payload.o as number;
    }
    const clauses = parseSearchQuery(q);
    const empty = clauses.length === 0 || scopes.length === 0;
    const result: SearchResult = empty
      ? {
          hits: [],
          hasMore: false,
          recall: { complete: true, rankingScope: "all_matches" },
          unmatched: clauses.filter((c) => c.occur !== "not").map((c) => c.text),
        }
      : await deps.store.search(scopes, {
          clauses,
          conditions,
          limit,
          offset,
          rankWindow: deps.searchRankWindow,
        });
    const names = connectionNames(catalog);
    const recall = recallMeta(result.recall, deps.searchRankWindow);
    const nextOffset = result.nextOffset ?? offset + result.hits.length;
    const hasMore = result.hasMore && nextOffset <= MAX_SEARCH_OFFSET;
    const snippetMeta = params.single("snippet_meta") === "true";
    const hits = result.hits.map((h) => toHit(h, { names, scopes, snippetMeta }));
    noteAnswerStreams(
      c,
      result.hits.map((h) => `${h.connectorKey}:${h.stream}`),
    );
    const nextCursor = hasMore ? signCursor(secret, { k: "srch", f: fp, o: nextOffset }) : null;
    // resume_points (read-params.ts): the cursor after each of the first N hits of the page.
    const points = resumePointsParam(params);
    const body: ListEnvelope<SearchHit> = {
      object: "list",
      data: hits,
      has_more: hasMore,
      next_cursor: nextCursor,
      meta: {
        ...(points === undefined
          ? {}
          : {
              resume_points: hits
                .slice(0, points)
                .map((_, i) =>
                  i === hits.length - 1
                    ? nextCursor
                    : signCursor(secret, { k: "srch", f: fp, o: offset + i + 1 }),
                ),
            }),
        warnings,
        recall,
        ...(result.unmatched.length > 0 ? { unmatched_terms: result.unmatched } : {}),
      },
    };
    return sendJson(c, body, { records: body.data.length });
  });
}
