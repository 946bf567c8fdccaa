// schema(stream) for streams too wide for one result: the field list (capabilities, and with
// detail:"full" the JSON Schema properties) in pages that fit both channels, with a cursor, the
// total and a visible continuation that repeats the arguments the cursor is bound to.
import type { FieldCapabilities, SchemaAnswer, SchemaStream } from "../wire.js";
import { jsonChars } from "./budget.js";
import { mintSchemaCursor, pageFingerprint } from "./schema-cursor.js";

/** Room for one page of fields in either channel; the rest is legend, argument help and footer. */
export const FIELDS_PAGE_CHARS = 32_000;

const OVERSIZED_NOTE =
  "this field's JSON Schema does not fit one result; its capabilities are in fields; read values with read_record_field";

interface FieldItem {
  connector: number;
  stream: number;
  path: string;
  caps: FieldCapabilities;
}

export interface FieldsRequest {
  stream: string;
  connectionId?: string;
  detail?: "compact" | "full";
}

function itemsOf(doc: SchemaAnswer): FieldItem[] {
  return doc.connectors.flatMap((c, connector) =>
    c.streams.flatMap((s, stream) =>
      Object.entries(s.fields ?? {}).map(([path, caps]) => ({ connector, stream, path, caps })),
    ),
  );
}

/** What a field-list cursor is bound to: the request, the grant and the visible field names. */
export function fieldsIdentity(
  doc: SchemaAnswer,
  request: FieldsRequest,
): { fingerprint: string; total: number } {
  const fingerprint = pageFingerprint([
    "fields",
    doc.bearer.grant_id ?? doc.bearer.kind,
    request.stream,
    request.connectionId ?? null,
    doc.view,
    doc.connectors.map((c) => [
      c.connector_key,
      c.connections.map((x) => x.connection_id),
      c.streams.map((s) => [s.name, Object.keys(s.fields ?? {})]),
    ]),
  ]);
  return { fingerprint, total: itemsOf(doc).length };
}

const topOf = (path: string) => path.split(".")[0];

function schemaProperty(row: SchemaStream, path: string): unknown {
  const props = (row.schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props?.[topOf(path)];
}

/**
 * The page of fields from `offset` whose capabilities (and JSON Schema properties) fit the page
 * budget in JSON and whose text lines (`lineOf`) fit it too; at least one field per page.
 */
export function fieldsPage(
  doc: SchemaAnswer,
  options: {
    offset: number;
    request: FieldsRequest;
    lineOf: (path: string, caps: FieldCapabilities) => string;
    pageChars?: number;
  },
): { doc: SchemaAnswer; from: number; to: number; total: number; nextCursor: string | null } {
  const items = itemsOf(doc);
  const budget = options.pageChars ?? FIELDS_PAGE_CHARS;
  const from = Math.min(options.offset, items.length);
  let to = from;
  let text = 0;
  let structured = 0;
  const tops = new Set<string>();
  for (; to < items.length; to++) {
    const it = items[to];
    const row = doc.connectors[it.connector].streams[it.stream];
    const top = `${it.connector}/${it.stream}/${topOf(it.path)}`;
    const prop = tops.has(top) ? undefined : schemaProperty(row, it.path);
    const addStructured =
      it.path.length +
      jsonChars(it.caps) +
      4 +
      (prop === undefined ? 0 : jsonChars(prop) + topOf(it.path).length + 4);
    const addText = options.lineOf(it.path, it.caps).length + 1;
    if (to > from && (structured + addStructured > budget || text + addText > budget)) break;
    structured += addStructured;
    text += addText;
    tops.add(top);
  }
  const { fingerprint } = fieldsIdentity(doc, options.request);
  const nextCursor = to < items.length ? mintSchemaCursor("fields", to, fingerprint) : null;
  const onPage = new Set(items.slice(from, to).map((it) => `${it.connector}/${it.stream}/${it.path}`));
  const connectors = doc.connectors.map((c, ci) => ({
    ...c,
    streams: c.streams.map((s, si) => {
      const fields = Object.entries(s.fields ?? {}).filter(([p]) => onPage.has(`${ci}/${si}/${p}`));
      const keep = fields.map(([p]) => p);
      const row: SchemaStream = { ...s, fields: Object.fromEntries(fields) };
      if (s.schema) {
        const props = (s.schema as { properties?: Record<string, unknown> }).properties ?? {};
        const wanted = new Set(keep.map(topOf));
        // One field alone over the page (a JSON Schema of thousands of members): its capabilities
        // stay, its JSON Schema is replaced by a note rather than failing the call.
        const alone = to === from + 1 && structured > budget;
        row.schema = {
          ...s.schema,
          properties: Object.fromEntries(
            Object.entries(props)
              .filter(([name]) => wanted.has(name))
              .map(([name, p]) => [name, alone ? { description: OVERSIZED_NOTE } : p]),
          ),
        };
      }
      return row;
    }),
  }));
  return { doc: { ...doc, connectors }, from, to, total: items.length, nextCursor };
}

/** The schema(stream) arguments a cursor must be repeated with (and the cursor), as JSON text. */
export function fieldsCallArgs(request: FieldsRequest, cursor?: string): string {
  return JSON.stringify({
    stream: request.stream,
    ...(request.connectionId ? { connection_id: request.connectionId } : {}),
    ...(request.detail ? { detail: request.detail } : {}),
    ...(cursor ? { cursor } : {}),
  });
}
