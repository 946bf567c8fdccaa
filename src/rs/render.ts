// Shared read glue: load the catalog, resolve scopes, shape wire records, and the
// ambiguous_connection error (answered from grant metadata alone, no record lookups).
import type { Context } from "hono";
import { PdppError } from "../core/errors.js";
import type { StreamScope } from "../core/grant.js";
import { type Catalog, connectionCount, scopesForStream, streamNotFound } from "../core/grant-scope.js";
import { formatRecordRef, isConnectionId, requireSafeName, STREAM_NAME_RE } from "../core/ids.js";
import type { FieldPreviewInfo, WireRecord } from "../core/wire.js";
import type { Store, StoredRecord } from "../store/store.js";
import type { RsEnv } from "./env.js";

export const MAX_AMBIGUITY_ENTRIES = 12;

export async function loadCatalog(store: Store): Promise<Catalog> {
  const [manifests, connections] = await Promise.all([store.listManifests(), store.listConnections()]);
  return { manifests, connections };
}

export function connectionNames(catalog: Catalog): Map<string, string> {
  return new Map(catalog.connections.map((c) => [c.connection_id, c.display_name]));
}

/** Validate a stream path segment before it reaches anything else. */
export function checkStreamName(stream: string): string {
  requireSafeName(stream, "stream", { code: "invalid_request", param: "stream" });
  if (!STREAM_NAME_RE.test(stream)) {
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

/** Scopes of a stream for the caller of `c` (404 when hidden). */
export async function streamScopes(
  c: Context<RsEnv>,
  options: { stream: string; connectionId?: string },
): Promise<{ scopes: StreamScope[]; catalog: Catalog }> {
  const catalog = await loadCatalog(c.get("deps").store);
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

export function toWireRecord(record: StoredRecord, names: Map<string, string>): WireRecord {
  const wire: WireRecord = {
    object: "record",
    id: formatRecordRef(record.connectionId, record.stream, record.recordId),
    stream: record.stream,
    record_id: record.recordId,
    connection_id: record.connectionId,
    connector_key: record.connectorKey,
    display_name: names.get(record.connectionId) ?? record.connectionId,
    emitted_at: record.emittedAt,
    time: record.time,
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
