// Resolves what a bearer (owner or grant) may read into StreamScopes, the input of every Store
// read. Hidden streams and connections simply do not appear: callers answer 404, never 403.

import type { Connection } from "../store/store.js";
import { PdppError } from "./errors.js";
import type { Grant, StreamScope } from "./grant.js";
import { parseStreamName, qualifiedStreamName } from "./ids.js";
import { fieldSchemaAt, type Manifest } from "./manifest.js";

// Not-found errors never echo the requested name: it may be a hidden stream's or connection's.
export function streamNotFound(): PdppError {
  return new PdppError(
    "stream_not_found",
    "no such stream is visible to this bearer; see schema for streams.",
    {
      param: "stream",
    },
  );
}

export function connectionNotFound(): PdppError {
  return new PdppError(
    "connection_not_found",
    "no such connection is visible to this bearer; see schema for connections.",
    {
      param: "connection_id",
    },
  );
}

export type Bearer = { kind: "owner" } | { kind: "client"; grant: Grant };

/** Manifests and connections as the store holds them (metadata only, no records). */
export interface Catalog {
  manifests: Manifest[];
  connections: Connection[];
}

function normaliseBound(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function connectionsOf(catalog: Catalog, connectorKey: string): string[] {
  return catalog.connections
    .filter((c) => c.connector_key === connectorKey)
    .map((c) => c.connection_id)
    .sort();
}

/** Every stream scope the bearer can see, ordered by connector then stream declaration. */
export function visibleScopes(bearer: Bearer, catalog: Catalog): StreamScope[] {
  const byKey = new Map(catalog.manifests.map((m) => [m.connector_key, m]));
  if (bearer.kind === "owner") {
    const sorted = [...catalog.manifests].sort((a, b) => a.connector_key.localeCompare(b.connector_key));
    return sorted.flatMap((manifest) => {
      const connectionIds = connectionsOf(catalog, manifest.connector_key);
      if (connectionIds.length === 0) return [];
      return manifest.streams.map((stream) => ({
        connectorKey: manifest.connector_key,
        stream,
        connectionIds,
        fields: "all" as const,
        since: null,
        until: null,
      }));
    });
  }
  const seen = new Set<string>();
  const scopes: StreamScope[] = [];
  for (const entry of bearer.grant.streams) {
    const id = `${entry.connector_key}\u0000${entry.stream}`;
    if (seen.has(id)) continue; // grant creation rejects duplicates; stay safe on old data
    seen.add(id);
    const manifest = byKey.get(entry.connector_key);
    const stream = manifest?.streams.find((s) => s.name === entry.stream);
    if (!stream) continue;
    const existing = connectionsOf(catalog, entry.connector_key);
    const connectionIds =
      entry.connections === "all"
        ? existing
        : existing.filter((c) => (entry.connections as string[]).includes(c));
    if (connectionIds.length === 0) continue;
    scopes.push({
      connectorKey: entry.connector_key,
      stream,
      connectionIds,
      fields: entry.fields === "all" ? "all" : [...entry.fields],
      since: normaliseBound(entry.time_range?.since),
      until: normaliseBound(entry.time_range?.until),
    });
  }
  return scopes.sort((a, b) => a.connectorKey.localeCompare(b.connectorKey));
}

/** Narrow scopes to one connection; a connection the bearer cannot see → 404 connection_not_found. */
export function narrowToConnection(scopes: StreamScope[], connectionId: string | undefined): StreamScope[] {
  if (connectionId === undefined) return scopes;
  const narrowed = scopes
    .filter((s) => s.connectionIds.includes(connectionId))
    .map((s) => ({ ...s, connectionIds: [connectionId] }));
  if (narrowed.length === 0) {
    throw connectionNotFound();
  }
  return narrowed;
}

/**
 * The one resolution of a stream name for every route: the scopes among `scopes` that a bare
 * name (every connector having it) or a qualified `connector_key:stream` (that connector's)
 * selects. None → 404 stream_not_found.
 */
export function selectStream(scopes: StreamScope[], name: string): StreamScope[] {
  const ref = parseStreamName(name);
  const selected = ref
    ? scopes.filter(
        (s) =>
          s.stream.name === ref.stream && (ref.connectorKey === null || s.connectorKey === ref.connectorKey),
      )
    : [];
  if (selected.length === 0) throw streamNotFound();
  return selected;
}

/**
 * The scopes of one stream name (one per connector having it, or the one a qualified name
 * picks), optionally narrowed to a connection. A stream the bearer cannot see → 404.
 */
export function scopesForStream(
  bearer: Bearer,
  catalog: Catalog,
  options: { stream: string; connectionId?: string },
): StreamScope[] {
  return narrowToConnection(
    selectStream(visibleScopes(bearer, catalog), options.stream),
    options.connectionId,
  );
}

/** Qualified names of the scopes, in connector order: what a bare shared name spans. */
export function qualifiedNames(scopes: Pick<StreamScope, "connectorKey" | "stream">[]): string[] {
  return [...new Set(scopes.map((s) => qualifiedStreamName(s.connectorKey, s.stream.name)))].sort();
}

/**
 * A bare stream name shared by several connectors, used with a field only some of them declare:
 * 409 ambiguous_stream naming the qualified streams to retry with. A field no connector declares
 * is left to the caller's "no such field" answer; one connector is never ambiguous.
 */
export function requireFieldInEveryConnector(
  scopes: (Pick<StreamScope, "stream"> & { connectorKey?: string })[],
  options: { field: string; param: string },
): void {
  requireInEveryConnector(scopes, {
    param: options.param,
    why: `${options.field} is not a field of every one of them`,
    allows: (s) => fieldSchemaAt(s.stream, options.field) !== undefined,
  });
}

/**
 * A bare stream name shared by several connectors, read with something (a filter op, a sort, an
 * aggregation, a granted field) that only some of them allow: 409 ambiguous_stream naming the
 * qualified streams, so the caller retries on the one that allows it instead of reading a
 * "not supported" answer about a stream that does support it. None allowing it is left to the
 * caller's own error; one connector is never ambiguous.
 */
export function requireInEveryConnector<S extends Pick<StreamScope, "stream"> & { connectorKey?: string }>(
  scopes: S[],
  options: { param: string; why: string; allows: (scope: S) => boolean },
): void {
  const keyed = scopes.filter((s): s is S & { connectorKey: string } => !!s.connectorKey);
  if (new Set(keyed.map((s) => s.connectorKey)).size < 2) return;
  const allowing = new Set(keyed.filter(options.allows).map((s) => s.connectorKey));
  if (allowing.size === 0 || keyed.every((s) => allowing.has(s.connectorKey))) return;
  throw ambiguousStream(keyed, { param: options.param, why: options.why });
}

/** 409 ambiguous_stream: a bare name spans several connectors and the read needs one. */
export function ambiguousStream(
  scopes: Pick<StreamScope, "stream" | "connectorKey">[],
  options: { param: string; why: string },
): PdppError {
  const available = qualifiedNames(scopes);
  const name = scopes[0]?.stream.name ?? "";
  return new PdppError(
    "ambiguous_stream",
    `${name} is a stream of ${available.length} connectors and ${options.why}; pass stream as one of ${available.join(", ")}.`,
    {
      param: "stream",
      details: { retry_with: "stream", available_streams: available, conflicting_param: options.param },
    },
  );
}

/** How many connections a set of scopes spans (source-required reads need exactly one). */
export function connectionCount(scopes: StreamScope[]): number {
  return new Set(scopes.flatMap((s) => s.connectionIds)).size;
}
