// content[] text of schema: the grant-wide index (every stream named, detailed rows capped) and
// the per-stream capability view with a legend a text-only client can build arguments from.

import { headUnits } from "../clip-text.js";
import { parseStreamName } from "../ids.js";
import type { FieldCapabilities, SchemaAnswer, SchemaStream } from "../wire.js";
import { clipBytes, SCHEMA_INDEX_DETAILED_ROWS } from "./budget.js";

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function totalRecords(stream: SchemaStream): number {
  return Object.values(stream.record_counts ?? {}).reduce((a, b) => a + b, 0);
}

/** schema() without a stream: every granted stream name grouped by connector. */
export function renderSchemaIndex(doc: SchemaAnswer): string {
  const streamCount = doc.connectors.reduce(
    (n, c) => n + c.streams.length + (c.more_streams?.length ?? 0),
    0,
  );
  const lines = [
    `schema index · ${plural(doc.connectors.length, "connector")} · ${plural(streamCount, "stream")} · bearer ${doc.bearer.kind}${doc.bearer.grant_id ? ` ${doc.bearer.grant_id}` : ""}`,
  ];
  let detailed = 0;
  for (const connector of doc.connectors) {
    lines.push(
      `[${connector.connector_key}] ${clipBytes(connector.display_name, 40)} · connections: ${connectionsLine(connector)}`,
    );
    const rest: string[] = [];
    for (const stream of connector.streams) {
      if (detailed >= SCHEMA_INDEX_DETAILED_ROWS) {
        rest.push(stream.qualified_name ?? stream.name);
        continue;
      }
      detailed++;
      const perConn =
        connector.connections.length > 1
          ? ` (${Object.entries(stream.record_counts ?? {})
              .map(([c, n]) => `${c}=${n}`)
              .join(" ")})`
          : "";
      const time = stream.time_field ? ` time=${stream.time_field}` : "";
      lines.push(
        `  ${stream.qualified_name ?? stream.name}: ${totalRecords(stream)} records${perConn}${time}`,
      );
    }
    rest.push(...(connector.more_streams ?? []));
    if (rest.length > 0) lines.push(`  streams=${rest.join(",")}`);
  }
  lines.push(
    "next: call schema(stream) for fields, filters, sort and aggregations; pass connection_id when a stream has several connections",
  );
  return lines.join("\n");
}

function fieldFlags(name: string, caps: FieldCapabilities, sortable: Set<string>, full: boolean): string {
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

function sortableOf(stream: SchemaStream): Set<string> {
  const out = new Set<string>();
  if (stream.cursor_field) out.add(stream.cursor_field);
  if (stream.time_field) out.add(stream.time_field);
  for (const [name, caps] of Object.entries(stream.fields ?? {})) {
    if (caps.granted && caps.range_filter.length > 0) out.add(name);
  }
  return out;
}

/** schema(stream): per-field flags for each matching connector/connection row, with a legend. */
export function renderSchemaStream(doc: SchemaAnswer, stream: string): string {
  const ref = parseStreamName(stream);
  const rows = doc.connectors.flatMap((c) =>
    c.streams
      .filter(
        (s) => s.name === ref?.stream && (ref.connectorKey === null || c.connector_key === ref.connectorKey),
      )
      .map((s) => ({ c, s })),
  );
  const full = doc.view === "full";
  const lines = [
    `schema ${stream} · ${rows.length} row${rows.length === 1 ? "" : "s"} · view=${doc.view}`,
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
      lines.push(fieldFlags(name, caps, sortable, full));
  }
  lines.push(
    'args: filter=[{"field":"<eq or r field>","op":"eq|gt|gte|lt|lte","value":"<string>"}] · sort="<s field>" or "-<s field>" · fields=["<field>",…] · aggregate metric=count|sum|min|max|count_distinct with field, group_by=<a has group_by> or group_by_time=<a has group_by_time>+granularity',
  );
  lines.push(
    `count: query_records count:"exact" adds the total of matching records; aggregate metric=count counts without reading them`,
  );
  const searchable = [
    ...new Set(
      rows.flatMap((r) =>
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
  return lines.join("\n");
}

/**
 * Shrink field descriptions (capabilities and JSON Schema) until the document's JSON fits.
 * Returns the document unchanged when it already fits.
 */
export function fitSchemaDoc(doc: SchemaAnswer, maxChars: number): { doc: SchemaAnswer; clipped: boolean } {
  if (JSON.stringify(doc).length <= maxChars) return { doc, clipped: false };
  for (const limit of [400, 120, 40, 0]) {
    const next = JSON.parse(JSON.stringify(doc), (key, value) =>
      key === "description" && typeof value === "string"
        ? limit === 0
          ? undefined
          : value.length > limit
            ? `${headUnits(value, limit)}…`
            : value
        : value,
    ) as SchemaAnswer;
    if (JSON.stringify(next).length <= maxChars) return { doc: next, clipped: true };
  }
  // Past that only a smaller scope helps; the caller turns this into an error.
  return { doc, clipped: true };
}

/**
 * The structured index capped like the text: the first SCHEMA_INDEX_DETAILED_ROWS stream rows in
 * full, and past that each connector's `more_streams` name list, so every granted stream is named
 * in both channels at any grant size (500 streams fit in 40,000 chars).
 */
export function capSchemaIndex(doc: SchemaAnswer): SchemaAnswer {
  let detailed = 0;
  let capped = false;
  const connectors = doc.connectors.map((connector) => {
    const keep: SchemaStream[] = [];
    const more: string[] = [];
    for (const stream of connector.streams) {
      if (detailed < SCHEMA_INDEX_DETAILED_ROWS) {
        keep.push(stream);
        detailed++;
      } else more.push(stream.qualified_name ?? stream.name);
    }
    if (more.length === 0) return connector;
    capped = true;
    return { ...connector, streams: keep, more_streams: more };
  });
  if (!capped) return doc;
  return {
    ...doc,
    connectors,
    note: `the first ${SCHEMA_INDEX_DETAILED_ROWS} streams have rows; more_streams names the rest; call schema(stream) for any of them`,
  };
}
