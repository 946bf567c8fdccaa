// Shared read glue: the per-stream read preamble, catalog and scope resolution, wire records,
// and the ambiguous_connection error (answered from grant metadata alone, no record lookups).
import type { Context } from "hono";
import { PdppError } from "../core/errors.js";
import { type StreamScope, scopeGrantsPath } from "../core/grant.js";
import { type Catalog, connectionCount, scopesForStream, streamNotFound } from "../core/grant-scope.js";
import { formatRecordRef, isConnectionId, parseStreamName, requireSafeName } from "../core/ids.js";
import type { FieldPreviewInfo, WireRecord } from "../core/wire.js";
import type { Store, StoredRecord } from "../store/store.js";
import { noteRead } from "./access-log.js";
import type { AuthInfo, RsEnv } from "./env.js";
import { Params } from "./params.js";

export const MAX_AMBIGUITY_ENTRIES = 12;

/**
 * The catalog for this request: the store answers from its never-stale cache when it can. Pass
 * the request's auth so a backend that read a catalog generation with the bearer can use it.
 */
export function loadCatalog(store: Store, auth?: AuthInfo): Promise<Catalog> {
  return store.catalog(auth?.catalogGeneration);
}

export function connectionNames(catalog: Catalog): Map<string, string> {
  return new Map(catalog.connections.map((c) => [c.connection_id, c.display_name]));
}

/** Validate a stream name (bare or `connector_key:stream`) before it reaches anything else. */
export function checkStreamName(stream: string): string {
  requireSafeName(stream, "stream", { code: "invalid_request", param: "stream" });
  if (parseStreamName(stream) === null) {
    throw streamNotFound();
  }
  return stream;
}

export function checkConnectionParam(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isConnectionId(value)) {
    throw new PdppError("invalid_request", "connection_id looks like cin_ followed by 12 hex digits.", {
      param: "connection_id",
    });
  }
  return value;
}

/** The optional `connection_id` query parameter, checked (empty counts as absent). */
export function connectionIdParam(params: Params): string | undefined {
  return checkConnectionParam(params.single("connection_id") || undefined);
}

/**
 * What every /v1/streams/{stream}/… read starts with: only known parameters, a checked stream
 * name and connection_id, and the access-log note opened (so even a failing read is logged).
 */
export function openStreamRead(
  c: Context<RsEnv>,
  options: { route: string; allow: readonly string[]; filter?: boolean },
): { params: Params; stream: string; connectionId: string | undefined } {
  const params = new Params(c.req.url);
  params.allowOnly(options.allow, { filter: options.filter });
  const stream = checkStreamName(c.req.param("stream") ?? "");
  const connectionId = connectionIdParam(params);
  noteRead(c, { route: options.route, stream, connectionId });
  return { params, stream, connectionId };
}

/** The `record_id` path segment, checked as a safe name (400 invalid_id otherwise). */
export function recordIdParam(c: Context<RsEnv>): string {
  return requireSafeName(c.req.param("record_id"), "record_id", { param: "record_id" });
}

/** Same answer for a missing record and one the grant hides (time range, connection). */
export function recordNotFound(): PdppError {
  return new PdppError(
    "record_not_found",
    "no such record is visible on this connection; find ids with search or the records list.",
    { param: "record_id" },
  );
}

/** Who a cursor is bound to: the grant, or the owner. A cursor never crosses bearers. */
export function cursorBearer(auth: AuthInfo): string {
  return auth.grantId ?? "owner";
}

/** Record which connection a source-required read resolved to, for the access log. */
export function noteConnection(c: Context<RsEnv>, connectionId: string): void {
  const note = c.get("access");
  if (note) note.connectionId = connectionId;
}

/** Scopes of a stream for the caller of `c` (404 when hidden). */
export async function streamScopes(
  c: Context<RsEnv>,
  options: { stream: string; connectionId?: string },
): Promise<{ scopes: StreamScope[]; catalog: Catalog }> {
  const catalog = await loadCatalog(c.get("deps").store, c.get("auth"));
  const scopes = scopesForStream(c.get("auth").bearer, catalog, options);
  return { scopes, catalog };
}

/** 409 ambiguous_connection with the retry hints of 20-rs-api.md. */
export function ambiguousConnection(
  scopes: StreamScope[],
  options: { catalog: Catalog; grantId: string | null; what: string },
): PdppError {
  const names = connectionNames(options.catalog);
  const all = scopes.flatMap((s) =>
    s.connectionIds.map((id) => ({
      connection_id: id,
      connector_key: s.connectorKey,
      display_name: names.get(id) ?? id,
      grant_id: options.grantId,
    })),
  );
  const stream = scopes[0]?.stream.name ?? "";
  return new PdppError(
    "ambiguous_connection",
    `${stream} is visible on ${all.length} connections; pass connection_id to ${options.what}.`,
    {
      param: "connection_id",
      details: {
        retry_with: "connection_id",
        available_connections: all.slice(0, MAX_AMBIGUITY_ENTRIES),
        available_connection_count: all.length,
        available_connections_truncated: all.length > MAX_AMBIGUITY_ENTRIES,
        hint: `call GET /v1/schema?stream=${stream} for the full index of connections.`,
      },
    },
  );
}

/** Source-required reads: exactly one visible connection, or 409. */
export function requireOneConnection(
  scopes: StreamScope[],
  options: { catalog: Catalog; grantId: string | null; what: string },
): { scope: StreamScope; connectionId: string } {
  if (connectionCount(scopes) > 1) throw ambiguousConnection(scopes, options);
  return { scope: scopes[0], connectionId: scopes[0].connectionIds[0] };
}

/**
 * What a read of one record's field starts with (field windows, blob ranges): the stream read
 * opened, the record id checked, exactly one visible connection (409 otherwise) noted for the
 * access log, and the stream's bare name, which ids and cursor bindings use however the path
 * named it.
 */
export async function openRecordFieldRead(
  c: Context<RsEnv>,
  options: { route: string; allow: readonly string[]; what: string },
): Promise<{
  params: Params;
  recordId: string;
  catalog: Catalog;
  scope: StreamScope;
  connectionId: string;
  stream: string;
}> {
  const { params, stream: named, connectionId } = openStreamRead(c, options);
  const recordId = recordIdParam(c);
  const { scopes, catalog } = await streamScopes(c, { stream: named, connectionId });
  const { scope, connectionId: target } = requireOneConnection(scopes, {
    catalog,
    grantId: c.get("auth").grantId,
    what: options.what,
  });
  noteConnection(c, target);
  return { params, recordId, catalog, scope, connectionId: target, stream: scope.stream.name };
}

/**
 * The envelope's `time` as the caller may see it: the value of the stream's time_field, or null
 * when that field is not granted in the record's scope (the time is a payload value like any
 * other). Every record and hit the RS renders goes through here, so MCP inherits it.
 */
export function visibleTime(
  scopes: readonly StreamScope[],
  item: { connectorKey: string; stream: string; time: string | null },
): string | null {
  if (item.time === null) return null;
  const scope = scopes.find((s) => s.connectorKey === item.connectorKey && s.stream.name === item.stream);
  const timeField = scope?.stream.time_field;
  return scope && timeField !== undefined && scopeGrantsPath(scope, timeField) ? item.time : null;
}

export function toWireRecord(
  record: StoredRecord,
  options: { names: Map<string, string>; scopes: readonly StreamScope[] },
): WireRecord {
  const { names } = options;
  const wire: WireRecord = {
    object: "record",
    id: formatRecordRef(record.connectionId, record.stream, record.recordId),
    stream: record.stream,
    record_id: record.recordId,
    connection_id: record.connectionId,
    connector_key: record.connectorKey,
    display_name: names.get(record.connectionId) ?? record.connectionId,
    emitted_at: record.emittedAt,
    time: visibleTime(options.scopes, record),
    data: record.data,
  };
  if (record.deleted) wire.deleted = true;
  if (record.previews && Object.keys(record.previews).length > 0) {
    const previews: Record<string, FieldPreviewInfo> = {};
    for (const [path, p] of Object.entries(record.previews)) {
      previews[path] = { size_chars: p.sizeChars, digest: p.digest, complete: p.complete };
    }
    wire.field_previews = previews;
  }
  return wire;
}
