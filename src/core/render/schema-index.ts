// The schema index (schema without a stream) in pages that fit both channels: every granted stream
// named, grouped by connector and by the connections that carry it; the first rows detailed
// (record counts, time field); past one page, a cursor with the total and a visible continuation.
import type { SchemaAnswer, SchemaStream } from "../wire.js";
import { clipBytes, jsonChars, SCHEMA_INDEX_DETAILED_ROWS } from "./budget.js";
import { mintSchemaCursor, pageFingerprint } from "./schema-cursor.js";

type Connector = SchemaAnswer["connectors"][number];

/** Room for one page in either channel; the rest of 40,000 is header, footer and cursor. */
export const INDEX_PAGE_CHARS = 36_000;
/** Detailed rows share at most this much of a page (a row lists a count per connection). */
const DETAILED_ROWS_CHARS = 12_000;
/** Past this many connections a text row says "on N connections" instead of each count. */
const PER_CONNECTION_COUNTS_MAX = 8;
/**
 * A connector whose connection list is longer than this (as JSON; some 130 connections) pages
 * its connections like streams, instead of repeating them on every page it appears on.
 */
const CONNECTIONS_INLINE_CHARS = 8_000;

type Connection = Connector["connections"][number];

/** One item of the index: a stream, or a connection of a connector with very many of them. */
interface Entry {
  /** Position in the whole index. */
  i: number;
  connector: number;
  stream?: SchemaStream;
  connection?: Connection;
  name: string;
}

function pagesConnections(connector: Connector): boolean {
  return jsonChars(connector.connections) > CONNECTIONS_INLINE_CHARS;
}

function connectionText(c: Connection): string {
  return `${c.connection_id} "${clipBytes(c.display_name, 32)}"`;
}

export interface IndexPage {
  doc: SchemaAnswer;
  text: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function totalRecords(stream: SchemaStream): number {
  return Object.values(stream.record_counts ?? {}).reduce((a, b) => a + b, 0);
}

/** A connector's line; `paged` lists the connections of this page when it pages them. */
function connectorLine(connector: Connector, options: { continued: boolean; paged?: Connection[] }): string {
  const head = `[${connector.connector_key}] ${clipBytes(connector.display_name, 40)}${options.continued ? " (continued)" : ""}`;
  const all = connector.connections;
  if (!options.paged) return `${head} · connections: ${all.map(connectionText).join(", ")}`;
  if (options.paged.length === 0) return `${head} · ${all.length} connections, listed on earlier pages`;
  const first = all.indexOf(options.paged[0]) + 1;
  return `${head} · connections ${first}–${first + options.paged.length - 1} of ${all.length}: ${options.paged.map(connectionText).join(", ")}`;
}

function rowLine(connector: Connector, stream: SchemaStream, name: string): string {
  const counts = Object.entries(stream.record_counts ?? {});
  let perConn = "";
  if (connector.connections.length > PER_CONNECTION_COUNTS_MAX)
    perConn = ` (on ${counts.length} connections)`;
  else if (connector.connections.length > 1) perConn = ` (${counts.map(([c, n]) => `${c}=${n}`).join(" ")})`;
  const time = stream.time_field ? ` time=${stream.time_field}` : "";
  return `  ${name}: ${totalRecords(stream)} records${perConn}${time}`;
}

/** The connections a stream is visible on, when not every connection of its connector. */
function connectionSubset(connector: Connector, stream: SchemaStream): string | null {
  const on = Object.keys(stream.record_counts ?? {}).sort();
  return on.length === connector.connections.length ? null : on.join(" ");
}

/** The names of one connector's page entries, one line per set of connections carrying them. */
function nameLines(connector: Connector, entries: { stream: SchemaStream; name: string }[]): string[] {
  const groups = new Map<string | null, string[]>();
  for (const e of entries) {
    const key = connectionSubset(connector, e.stream);
    groups.set(key, [...(groups.get(key) ?? []), e.name]);
  }
  return [...groups].map(([on, names]) => `  ${on === null ? "" : `on ${on}: `}streams=${names.join(",")}`);
}

/**
 * Which streams get a detailed row: the first ones, at most 50, within DETAILED_ROWS_CHARS. The
 * answer is an entry position: streams before it are detailed.
 */
function detailedBoundary(doc: SchemaAnswer, entries: Entry[]): number {
  let used = 0;
  let n = 0;
  for (const e of entries) {
    if (!e.stream) continue;
    if (n >= SCHEMA_INDEX_DETAILED_ROWS) return e.i;
    const c = doc.connectors[e.connector];
    used += Math.max(jsonChars(e.stream), rowLine(c, e.stream, e.name).length) + 2;
    if (used > DETAILED_ROWS_CHARS) return e.i;
    n++;
  }
  return entries.length;
}

/** The names the index pages over (and the grant): a cursor is bound to exactly these. */
function indexFingerprint(doc: SchemaAnswer): string {
  return pageFingerprint([
    "index",
    doc.bearer.grant_id ?? doc.bearer.kind,
    doc.connectors.map((c) => [
      c.connector_key,
      c.connections.map((x) => x.connection_id),
      c.streams.map((s) => s.qualified_name ?? s.name),
    ]),
  ]);
}

function entriesOf(doc: SchemaAnswer): Entry[] {
  return doc.connectors
    .flatMap((c, connector): Omit<Entry, "i">[] => [
      ...(pagesConnections(c)
        ? c.connections.map((connection) => ({ connector, connection, name: connection.connection_id }))
        : []),
      ...c.streams.map((stream) => ({ connector, stream, name: stream.qualified_name ?? stream.name })),
    ])
    .map((e, i) => ({ ...e, i }));
}

/** What a cursor into this index is bound to, and how many streams it pages over. */
export function indexIdentity(doc: SchemaAnswer): { fingerprint: string; total: number } {
  return { fingerprint: indexFingerprint(doc), total: entriesOf(doc).length };
}

/** The cost of entries [from, to) in each channel, connectors' own lines included. */
function pageEnd(
  doc: SchemaAnswer,
  entries: Entry[],
  options: { from: number; detailed: number; budget: number },
): number {
  let text = 0;
  let structured = 0;
  let connector = -1;
  let to = options.from;
  const groups = new Set<string>();
  for (; to < entries.length; to++) {
    const e = entries[to];
    const c = doc.connectors[e.connector];
    let addText = 0;
    let addStructured = 0;
    if (e.connector !== connector) {
      const paged = pagesConnections(c);
      addText += connectorLine(c, { continued: true, paged: paged ? [] : undefined }).length + 40;
      addStructured +=
        jsonChars({ ...c, connections: paged ? [] : c.connections, streams: [], more_streams: [] }) + 40;
    }
    if (e.connection) {
      addText += connectionText(e.connection).length + 2;
      addStructured += jsonChars(e.connection) + 1;
    } else if (e.stream && to < options.detailed) {
      addText += rowLine(c, e.stream, e.name).length + 1;
      addStructured += jsonChars(e.stream) + 1;
    } else if (e.stream) {
      // A name in a streams= line (text) and in more_streams (JSON), plus its "on …:" group line.
      addText += e.name.length + 1;
      addStructured += e.name.length + 3;
      const subset = connectionSubset(c, e.stream);
      const group = `${e.connector}|${subset}`;
      if (subset !== null && !groups.has(group)) addText += subset.length + 16;
      groups.add(group);
    }
    if (to > options.from && (text + addText > options.budget || structured + addStructured > options.budget))
      break;
    text += addText;
    structured += addStructured;
    connector = e.connector;
  }
  return to;
}

/**
 * One page of the index from `offset` (see indexIdentity and resumeOffset): the structured
 * document (detailed rows in `streams`, names in `more_streams`) and its text.
 */
export function indexPage(doc: SchemaAnswer, options: { offset: number; pageChars?: number }): IndexPage {
  const entries = entriesOf(doc);
  const fingerprint = indexFingerprint(doc);
  const detailed = detailedBoundary(doc, entries);
  const from = Math.min(options.offset, entries.length);
  const to = pageEnd(doc, entries, { from, detailed, budget: options.pageChars ?? INDEX_PAGE_CHARS });
  const hasMore = to < entries.length;
  const nextCursor = hasMore ? mintSchemaCursor("index", to, fingerprint) : null;
  const paged = from > 0 || hasMore;

  const byConnector = new Map<number, Entry[]>();
  for (let i = from; i < to; i++) {
    const e = entries[i];
    byConnector.set(e.connector, [...(byConnector.get(e.connector) ?? []), e]);
  }
  const connectors: Connector[] = [];
  const connectionIds = new Set(doc.connectors.flatMap((c) => c.connections.map((x) => x.connection_id)));
  // Stream numbers (1-based) of the page: connection entries are not counted.
  const streamsBefore = (end: number) => entries.slice(0, end).filter((e) => e.stream).length;
  const total = streamsBefore(entries.length);
  const [first, last] = [streamsBefore(from) + 1, streamsBefore(to)];
  const detailedStreams = streamsBefore(detailed);
  const range = last >= first ? `streams ${first}–${last} of ${total}` : `connections only, no streams`;
  const lines = [
    `schema index · ${plural(doc.connectors.length, "connector")} · ${plural(total, "stream")} · ${plural(connectionIds.size, "connection")}${paged ? ` · page: ${range}` : ""} · bearer ${doc.bearer.kind}${doc.bearer.grant_id ? ` ${doc.bearer.grant_id}` : ""}`,
  ];
  for (const [k, group] of byConnector) {
    const c = doc.connectors[k];
    const continued = entries.findIndex((e) => e.connector === k) < from;
    const pagedConnections = pagesConnections(c)
      ? group.flatMap((e) => (e.connection ? [e.connection] : []))
      : undefined;
    lines.push(connectorLine(c, { continued, paged: pagedConnections }));
    const streams = group.filter((e): e is Entry & { stream: SchemaStream } => e.stream !== undefined);
    const rows = streams.filter((e) => e.i < detailed);
    const names = streams.filter((e) => e.i >= detailed);
    for (const e of rows) lines.push(rowLine(c, e.stream, e.name));
    lines.push(...nameLines(c, names));
    const shell: Connector & { connections_total?: number } = { ...c, streams: rows.map((e) => e.stream) };
    if (pagedConnections) {
      shell.connections = pagedConnections;
      shell.connections_total = c.connections.length;
    }
    if (names.length > 0) shell.more_streams = names.map((e) => e.name);
    connectors.push(shell);
  }
  const page: SchemaAnswer = { ...doc, connectors };
  if (detailedStreams < total) {
    page.note = `${detailedStreams} of ${total} streams have detailed rows; more_streams names the rest; call schema(stream) for any of them${hasMore ? "; page on with cursor=next_cursor" : ""}`;
  }
  Object.assign(page, {
    total_streams: total,
    ...(paged
      ? {
          streams_shown: {
            from: first,
            to: last,
            detailed: Math.max(0, Math.min(detailedStreams, last) - first + 1),
          },
        }
      : {}),
    has_more: hasMore,
    next_cursor: nextCursor,
  });
  if (hasMore) {
    lines.push(
      `more: streams ${last + 1}–${total} are on the next pages; call schema {"cursor":"${nextCursor}"}`,
    );
  } else if (from > 0) {
    lines.push(`last page of the index (streams ${first}–${last} of ${total})`);
  }
  lines.push(
    "next: call schema(stream) for fields, filters, sort and aggregations; pass connection_id when a stream has several connections",
  );
  return { doc: page, text: lines.join("\n") };
}
