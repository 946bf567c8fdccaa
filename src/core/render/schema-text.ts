// content[] text of schema(stream): the per-stream capability view with a legend a text-only
// client can build arguments from (the index is schema-index.ts).
import { parseStreamName } from "../ids.js";
import type { FieldCapabilities, SchemaAnswer, SchemaStream } from "../wire.js";
import { clipBytes, codePoints, sliceCodePoints } from "./budget.js";

type Connector = SchemaAnswer["connectors"][number];

export const SCHEMA_LEGEND =
  "legend: t=<type> eq=exact filter (op eq) r=<range ops> s=sortable a=<aggregations> txt=long text (read_record_field) bin=binary (not inlined) search=searched by the search tool ng=not granted";

function connectionsLine(connector: Connector, stream?: SchemaStream): string {
  return connector.connections
    .map((c) => {
      const count = stream?.record_counts?.[c.connection_id];
      return `${c.connection_id} "${clipBytes(c.display_name, 32)}"${count === undefined ? "" : `=${count}`}`;
    })
    .join(", ");
}

/** One field's line: its name and capability flags (and, in view=full, its clipped description). */
export function fieldFlags(
  name: string,
  caps: FieldCapabilities,
  options: { sortable: Set<string>; full: boolean },
): string {
  const { sortable, full } = options;
  if (!caps.granted) return ` ${name} t=${caps.type} ng`;
  const flags = [`t=${caps.type}`];
  if (caps.exact_filter) flags.push("eq");
  if (caps.range_filter.length > 0) flags.push(`r=${caps.range_filter.join(",")}`);
  if (sortable.has(name)) flags.push("s");
  const aggs = caps.aggregations.filter((a) => a !== "count");
  if (aggs.length > 0) flags.push(`a=${aggs.join(",")}`);
  if (caps.text_like) flags.push("txt");
  if (caps.binary) flags.push(`bin${caps.mime_type ? `:${caps.mime_type}` : ""}`);
  if (caps.search) flags.push("search");
  const desc = full && caps.description ? ` — ${clipBytes(caps.description.replace(/\s+/g, " "), 120)}` : "";
  return ` ${name} ${flags.join(" ")}${desc}`;
}

export function sortableOf(stream: SchemaStream): Set<string> {
  const out = new Set<string>();
  if (stream.cursor_field) out.add(stream.cursor_field);
  if (stream.time_field) out.add(stream.time_field);
  for (const [name, caps] of Object.entries(stream.fields ?? {})) {
    if (caps.granted && caps.range_filter.length > 0) out.add(name);
  }
  return out;
}

/** The rows of `doc` that `stream` (bare or connector-qualified) names. */
function rowsOf(doc: SchemaAnswer, stream: string): { c: Connector; s: SchemaStream }[] {
  const ref = parseStreamName(stream);
  return doc.connectors.flatMap((c) =>
    c.streams
      .filter(
        (s) => s.name === ref?.stream && (ref.connectorKey === null || c.connector_key === ref.connectorKey),
      )
      .map((s) => ({ c, s })),
  );
}

/** Where a page of a paged field list sits, and the call that continues it (null on the last). */
export interface FieldsPageInfo {
  from: number;
  to: number;
  total: number;
  next: string | null;
}

/**
 * schema(stream): per-field flags for each matching connector/connection row, with a legend.
 * A page of a wide stream (`page`) names its range and the call for the rest; `whole` is the
 * unpaged document, for what is said about every field (searchable ones).
 */
export function renderSchemaStream(
  doc: SchemaAnswer,
  stream: string,
  options: { page?: FieldsPageInfo; whole?: SchemaAnswer } = {},
): string {
  const { page } = options;
  const rows = rowsOf(doc, stream);
  const full = doc.view === "full";
  const lines = [
    `schema ${stream} · ${rows.length} row${rows.length === 1 ? "" : "s"} · view=${doc.view}${page ? ` · page: fields ${page.from + 1}–${page.to} of ${page.total}` : ""}`,
    SCHEMA_LEGEND,
  ];
  for (const { c, s } of rows) {
    const ident = [`pk=${s.primary_key.join(",")}`];
    if (s.time_field) ident.push(`time=${s.time_field}`);
    if (s.cursor_field) ident.push(`cursor=${s.cursor_field}`);
    if (s.title_field) ident.push(`title=${s.title_field}`);
    lines.push(
      `[${c.connector_key}] ${clipBytes(c.display_name, 40)} · connections: ${connectionsLine(c, s)} · ${ident.join(" ")}`,
    );
    const sortable = sortableOf(s);
    for (const [name, caps] of Object.entries(s.fields ?? {}))
      lines.push(fieldFlags(name, caps, { sortable, full }));
  }
  lines.push(
    'args: filter=[{"field":"<eq or r field>","op":"eq|gt|gte|lt|lte","value":"<string>"}] · sort="<s field>" or "-<s field>" · fields=["<field>",…] · aggregate metric=count|sum|min|max|count_distinct with field, group_by=<a has group_by> or group_by_time=<a has group_by_time>+granularity',
  );
  lines.push(
    `count: query_records count:"exact" adds the total of matching records; aggregate metric=count counts without reading them`,
  );
  const searchable = [
    ...new Set(
      rowsOf(options.whole ?? doc, stream).flatMap((r) =>
        Object.entries(r.s.fields ?? {})
          .filter(([, caps]) => caps.search)
          .map(([n]) => n),
      ),
    ),
  ];
  lines.push(
    searchable.length > 0
      ? `search fields: ${searchable.join(", ")} (search query with streams:["${stream}"])`
      : "search fields: none (this stream is not searchable)",
  );
  if (rows.some((r) => r.c.connections.length > 1) || rows.length > 1) {
    lines.push("several connections: pass connection_id to fetch, read_record_field and full schema");
  }
  if (!full) lines.push(`full JSON Schema: schema(stream:"${stream}", connection_id, detail:"full")`);
  if (page?.next) {
    lines.push(`more: fields ${page.to + 1}–${page.total} are on the next pages; call schema ${page.next}`);
  } else if (page) {
    lines.push(`last page of the field list (fields ${page.from + 1}–${page.to} of ${page.total})`);
  }
  return lines.join("\n");
}

/** Every field description (capabilities and JSON Schema) cut to `limit` code points; 0 drops them. */
export function clipDescriptions(doc: SchemaAnswer, limit: number): SchemaAnswer {
  return JSON.parse(JSON.stringify(doc), (key, value) =>
    key === "description" && typeof value === "string"
      ? limit === 0
        ? undefined
        : codePoints(value) > limit
          ? `${sliceCodePoints(value, limit)}…`
          : value
      : value,
  ) as SchemaAnswer;
}

/**
 * Shrink field descriptions, down to `floor` code points, until the document's JSON fits; null
 * when it does not fit even then (the caller pages the field list instead).
 */
export function fitSchemaDoc(
  doc: SchemaAnswer,
  options: { maxChars: number; floor: number },
): { doc: SchemaAnswer; clipped: boolean } | null {
  if (JSON.stringify(doc).length <= options.maxChars) return { doc, clipped: false };
  for (const limit of [400, 120, 40, 0]) {
    if (limit < options.floor) break;
    const next = clipDescriptions(doc, limit);
    if (JSON.stringify(next).length <= options.maxChars) return { doc: next, clipped: true };
  }
  return null;
}
