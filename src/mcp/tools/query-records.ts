// Tool `query_records`: one page of a stream's records, exact paging, previews with continuations.
import { z } from "zod";
import { PdppError } from "../../core/errors.js";
import { isFieldPath } from "../../core/ids.js";
import { jsonChars, MAX_RESULT_CHARS, PREVIEW_LADDER, TEXT_RECORDS_SHOWN } from "../../core/render/budget.js";
import { checkFilter, filterParams } from "../../core/render/filter.js";
import type { LadderEntry } from "../../core/render/ladder.js";
import {
  type BinaryFields,
  binaryFieldsOf,
  mimeTypesOf,
  previewRecord,
} from "../../core/render/record-preview.js";
import { checkConnectionArg } from "../../core/render/record-ref.js";
import { renderRecordsText } from "../../core/render/records-text.js";
import type { ListEnvelope, WireRecord } from "../../core/wire.js";
import { param, rsApi } from "../rs-api.js";
import { checkFields, checkStream, connectionIdArg, fieldsArg, filterArg, streamArg } from "./common.js";
import { defineTool, READ_ONLY_ANNOTATIONS, type ToolDeps } from "./types.js";

const DEFAULT_LIMIT = 25;

const inputSchema = z.strictObject({
  stream: streamArg,
  connection_id: connectionIdArg.optional(),
  filter: filterArg.optional(),
  sort: z.string().optional().describe('"field" or "-field" (descending); sortable fields from schema'),
  fields: fieldsArg.optional(),
  limit: z.int().min(1).max(100).optional().describe("default 25"),
  cursor: z.string().optional().describe("next_cursor from the previous page, as-is"),
  count: z.enum(["none", "exact"]).optional(),
  changes_since: z.string().optional().describe('"beginning" or next_changes_since'),
});

const ladderItem = z.looseObject({
  id: z.string(),
  field: z.looseObject({ path: z.string() }),
  continue: z.looseObject({}).optional(),
});

interface FieldLookups {
  binaryFor: (r: WireRecord) => BinaryFields | undefined;
  /** Declared MIME types of the record's other fields (e.g. text/plain), for ladder entries. */
  mimeFor: (r: WireRecord) => Map<string, string> | undefined;
}

/** Binary fields and MIME types per connector of the stream (cached schema rows); none for an empty page. */
async function fieldLookups(
  deps: ToolDeps,
  stream: string,
  page: ListEnvelope<WireRecord>,
): Promise<FieldLookups> {
  if (page.data.length === 0) return { binaryFor: () => undefined, mimeFor: () => undefined };
  const rows = await deps.schemas.rows(deps.rs, { tool: "query_records", stream });
  const binary = new Map([...rows].map(([key, row]) => [key, binaryFieldsOf(row)]));
  const mime = new Map([...rows].map(([key, row]) => [key, mimeTypesOf(row)]));
  return { binaryFor: (r) => binary.get(r.connector_key), mimeFor: (r) => mime.get(r.connector_key) };
}

export const queryRecordsTool = defineTool({
  name: "query_records",
  title: "Query records of one stream",
  description:
    'List records of one stream with typed filters, sort, field projection and exact cursor paging (all connections merged unless connection_id is given). Text shows the count, has_more, next_cursor and up to 5 records; long text is cut to a preview with the read_record_field arguments that continue it. count:"exact" adds the total; changes_since returns changes in order.',
  annotations: READ_ONLY_ANNOTATIONS,
  inputSchema,
  outputSchema: z.object({
    data: z.looseObject({
      object: z.literal("list"),
      data: z.array(z.looseObject({})),
      has_more: z.boolean(),
    }),
    content_ladder: z.array(ladderItem),
  }),
  async handler(args, deps) {
    const stream = checkStream(args.stream);
    const filter = checkFilter(args.filter);
    const fields = checkFields(args.fields);
    const connectionId = checkConnectionArg(args.connection_id);
    if (args.sort !== undefined && !isFieldPath(args.sort.replace(/^-/, ""))) {
      throw new PdppError(
        "invalid_request",
        'sort must be "field" or "-field" with a sortable field from schema(stream).',
        {
          param: "sort",
        },
      );
    }
    const base: [string, string][] = [...filterParams(filter)];
    param(base, "sort", args.sort);
    if (fields) param(base, "fields", fields.join(","));
    param(base, "cursor", args.cursor);
    param(base, "count", args.count);
    param(base, "changes_since", args.changes_since);
    param(base, "connection_id", connectionId);
    // The text shows at most TEXT_RECORDS_SHOWN records: their own continuations (issue 20 item 4).
    param(base, "resume_points", TEXT_RECORDS_SHOWN);
    const asked = args.limit ?? DEFAULT_LIMIT;
    let limit = asked;
    for (;;) {
      const previewChars = previewCharsFor(limit);
      const envelope = await rsApi.listRecords(deps.rs, "query_records", stream, [
        ...base,
        ["preview_chars", String(Math.max(PREVIEW_CHARS_MIN, previewChars))],
        ["limit", String(limit)],
      ]);
      const { binaryFor, mimeFor } = await fieldLookups(deps, stream, envelope);
      const fitted = fitPage(envelope, {
        previewChars,
        narrowed: fields !== undefined,
        reduced: limit < asked ? limit : undefined,
        binaryFor,
        mimeFor,
      });
      if (fitted || limit === 1) {
        const result =
          fitted ??
          oversizedPage(envelope, { narrowed: fields !== undefined, reduced: limit, binaryFor, mimeFor });
        const text = renderRecordsText(envelope, {
          stream,
          narrowed: fields !== undefined,
          reducedLimit: limit < asked ? limit : undefined,
          binaryFor,
        });
        return { content: [{ type: "text", text }], structuredContent: result };
      }
      limit = Math.max(1, Math.floor(Math.min(limit, envelope.data.length) / 2));
    }
  },
});

/** The RS's smallest preview_chars (read-params.ts PREVIEW_CHARS_RANGE). */
const PREVIEW_CHARS_MIN = 64;
/** Room for previews in one structured result; the rest is identity, metadata and ladder entries. */
const PREVIEW_BUDGET_CHARS = 30_000;

/**
 * The preview size for a page of `limit` records, chosen up front so a page of long texts renders
 * once: the longest step of the ladder whose previews for the whole page fit the budget.
 */
export function previewCharsFor(limit: number): number {
  for (const step of PREVIEW_LADDER) if (step * limit <= PREVIEW_BUDGET_CHARS) return step;
  return PREVIEW_LADDER[PREVIEW_LADDER.length - 1];
}

interface PageOptions {
  narrowed: boolean;
  reduced?: number;
  binaryFor: (r: WireRecord) => BinaryFields | undefined;
  mimeFor?: (r: WireRecord) => Map<string, string> | undefined;
}

function buildStructured(
  envelope: ListEnvelope<WireRecord>,
  options: PageOptions & { maxChars: number },
): Record<string, unknown> {
  const ladder: LadderEntry[] = [];
  const records = envelope.data.map((r) => {
    const p = previewRecord(r, {
      maxChars: options.maxChars,
      narrowed: options.narrowed,
      binary: options.binaryFor(r),
      mimeTypes: options.mimeFor?.(r),
    });
    ladder.push(...p.ladder);
    return p.record;
  });
  const warnings = [...(envelope.meta.warnings ?? [])];
  if (options.reduced !== undefined) {
    warnings.push({
      code: "limit_reduced",
      message: `limit reduced to ${options.reduced} to fit the result budget; page on with next_cursor.`,
    });
  }
  // resume_points serve the text channel; the structured page pages by its own next_cursor.
  const { resume_points: _points, ...meta } = envelope.meta;
  return {
    data: { ...envelope, data: records, meta: { ...meta, warnings } },
    content_ladder: ladder,
  };
}

/**
 * One record that does not fit even with 32-char previews (huge arrays or thousands of fields):
 * its payload is left out, with the way to read it in parts, so the result still fits the cap.
 */
function oversizedPage(envelope: ListEnvelope<WireRecord>, options: PageOptions): Record<string, unknown> {
  const smallest = buildStructured(envelope, {
    ...options,
    maxChars: PREVIEW_LADDER[PREVIEW_LADDER.length - 1],
  });
  if (jsonChars(smallest) <= MAX_RESULT_CHARS - 200) return smallest;
  const omitted = {
    ...envelope,
    data: envelope.data.map((r) => ({
      ...r,
      // ≤ 32 chars: the smallest preview step must not cut the note itself.
      data: { _omitted: "too large; pass fields:[…]" },
      field_previews: undefined,
    })),
  };
  return buildStructured(omitted, { ...options, maxChars: PREVIEW_LADDER[PREVIEW_LADDER.length - 1] });
}

/** The structured result at the largest preview (from `previewChars` down) that fits, or null. */
function fitPage(
  envelope: ListEnvelope<WireRecord>,
  options: PageOptions & { previewChars: number },
): Record<string, unknown> | null {
  for (const maxChars of PREVIEW_LADDER) {
    if (maxChars > options.previewChars) continue;
    const result = buildStructured(envelope, { ...options, maxChars });
    if (jsonChars(result) <= MAX_RESULT_CHARS - 200) return result;
  }
  return null;
}
