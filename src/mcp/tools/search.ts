// Tool `search`: full-text search across granted streams; hits carry self-contained fetch ids.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { boundTitle, jsonChars, MAX_RESULT_CHARS } from "../../core/render/budget.js";
import { recordUrl } from "../../core/render/fetch-doc.js";
import { checkFilter, filterParams } from "../../core/render/filter.js";
import { type LadderEntry, snippetEntry } from "../../core/render/ladder.js";
import { mimeTypesOf } from "../../core/render/record-preview.js";
import { checkConnectionArg, wrapHitId } from "../../core/render/record-ref.js";
import { renderSearchText, type SearchResultRow } from "../../core/render/search-text.js";
import type { ListEnvelope, SearchHit } from "../../core/wire.js";
import { AccessLogSlot } from "../../rs/in-process.js";
import { param, rsApi } from "../rs-api.js";
import { checkStream, connectionIdArg, filterArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS, type ToolDeps } from "./types.js";

const DEFAULT_LIMIT = 10;
/** More hits than search text shows in its 1,800 bytes (a hit block is 80–300 bytes). */
const SEARCH_TEXT_HITS = 20;

const inputSchema = z.strictObject({
  query: z.string().min(1).describe('words (ANDed), "phrases", prefix*'),
  streams: z.array(z.string()).optional().describe("limit to these streams"),
  connection_id: connectionIdArg.optional(),
  filter: filterArg.optional().describe("needs exactly one stream in streams"),
  limit: z.int().min(1).max(100).optional().describe("merged hits, default 10"),
  cursor: z.string().optional().describe("next_cursor, as-is"),
});

const resultRow = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  connection_id: z.string(),
  connector_key: z.string(),
  display_name: z.string(),
  stream: z.string(),
  record_id: z.string(),
  time: z.string().nullable(),
  snippet: z.string().nullable(),
  snippet_field: z.string().nullable(),
  matched_fields: z.array(z.string()),
  score: z.number(),
});

function toRow(hit: SearchHit, deps: ToolDeps): SearchResultRow {
  const time = hit.time ?? null;
  const title = boundTitle(
    hit.title?.trim() ? hit.title : `${hit.display_name} · ${hit.stream} · ${time ?? "undated"}`,
  );
  return {
    id: wrapHitId(hit),
    title,
    url: recordUrl(deps.providerUrl, hit),
    connection_id: hit.connection_id,
    connector_key: hit.connector_key,
    display_name: hit.display_name,
    stream: hit.stream,
    record_id: hit.record_id,
    time,
    snippet: hit.snippet?.text ?? null,
    snippet_field: hit.snippet?.field ?? null,
    matched_fields: hit.matched_fields ?? [],
    score: hit.score,
  };
}

/** Declared MIME types of the snippet fields' streams, per `connector_key:stream` (cached schema rows). */
async function snippetMimeTypes(
  envelope: ListEnvelope<SearchHit>,
  deps: ToolDeps,
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const hit of envelope.data) {
    const key = `${hit.connector_key}:${hit.stream}`;
    if (!hit.snippet || out.has(key)) continue;
    const rows = await deps.schemas.rows(deps.rs, { tool: "search", stream: key });
    out.set(key, mimeTypesOf(rows.get(hit.connector_key)));
  }
  return out;
}

function build(
  envelope: ListEnvelope<SearchHit>,
  deps: ToolDeps,
  options: { reduced?: number; mimeTypes: Map<string, Map<string, string>> },
) {
  const reduced = options.reduced;
  const rows = envelope.data.map((hit) => toRow(hit, deps));
  const ladder: LadderEntry[] = [];
  for (const [i, hit] of envelope.data.entries()) {
    const mark = /<mark>(.*?)<\/mark>/.exec(hit.snippet?.text ?? "");
    if (hit.snippet && mark && mark[1].length > 0 && hit.connection_id) {
      ladder.push(
        snippetEntry(
          { ...hit, id: rows[i].id },
          {
            path: hit.snippet.field,
            q: mark[1],
            sizeChars: hit.snippet.size_chars,
            digest: hit.snippet.digest,
            mimeType: options.mimeTypes.get(`${hit.connector_key}:${hit.stream}`)?.get(hit.snippet.field),
            ...(hit.snippet.start_chars !== undefined && hit.snippet.end_chars !== undefined
              ? { range: { start: hit.snippet.start_chars, end: hit.snippet.end_chars } }
              : {}),
          },
        ),
      );
    }
  }
  const warnings = [...(envelope.meta.warnings ?? [])];
  if (reduced !== undefined)
    warnings.push({
      code: "limit_reduced",
      message: `limit reduced to ${reduced} to fit the result budget.`,
    });
  const { data: _hits, ...rest } = envelope;
  // resume_points serve the text channel; the structured page pages by its own next_cursor.
  const { resume_points: _points, ...meta } = envelope.meta;
  const structured = {
    results: rows,
    data: { ...rest, meta: { ...meta, warnings } },
    content_ladder: ladder,
  };
  return { rows, structured };
}

export const searchTool = defineTool({
  name: "search",
  title: "Search records",
  description:
    'Search every granted stream (or streams), merged across connections; limit counts merged hits. Ask as written: words optional, ranked (BM25, English stems); "phrase", prefix*, +required, -excluded. Each hit: an id to pass as-is to fetch, title, source, time, <mark>ed snippet. filter needs exactly one stream. Page: cursor=next_cursor.',
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema: z.object({
    results: z.array(resultRow),
    data: z.looseObject({ object: z.literal("list"), has_more: z.boolean() }),
    content_ladder: z.array(z.looseObject({ id: z.string() })),
  }),
  async handler(args, deps) {
    if (args.query.length > 1000)
      throw new PdppError("invalid_request", "query holds at most 1,000 characters.", { param: "query" });
    const filter = checkFilter(args.filter);
    const streams = args.streams?.map(checkStream);
    if (filter && streams?.length !== 1) {
      throw new PdppError("invalid_filter", 'filter needs exactly one stream: pass streams:["<stream>"].', {
        param: "filter",
      });
    }
    // snippet_meta: the RS adds each snippet field's size_chars and digest for the ladder entries.
    // resume_points: the cursor after each hit the text may show (issue 20 item 4).
    const base: [string, string][] = [
      ["q", args.query],
      ["snippet_meta", "true"],
      ["resume_points", String(SEARCH_TEXT_HITS)],
      ...filterParams(filter),
    ];
    for (const s of streams ?? []) base.push(["streams", s]);
    param(base, "cursor", args.cursor);
    param(base, "connection_id", checkConnectionArg(args.connection_id));
    const asked = args.limit ?? DEFAULT_LIMIT;
    let limit = asked;
    // The retries at smaller limits are one tool call: one access-log row, the last read's.
    const slot = new AccessLogSlot();
    try {
      for (;;) {
        const envelope = await rsApi.search(deps.rs, "search", [...base, ["limit", String(limit)]], slot);
        const reduced = limit < asked ? limit : undefined;
        const mimeTypes = await snippetMimeTypes(envelope, deps);
        const { rows, structured } = build(envelope, deps, { reduced, mimeTypes });
        if (jsonChars(structured) <= MAX_RESULT_CHARS - 200 || limit === 1) {
          const text = renderSearchText(envelope, rows, { reducedLimit: reduced });
          return { content: [{ type: "text", text }], structuredContent: structured };
        }
        limit = Math.max(1, Math.floor(Math.min(limit, envelope.data.length) / 2));
      }
    } finally {
      await slot.commit();
    }
  },
});
