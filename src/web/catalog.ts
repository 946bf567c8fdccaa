// What the owner pages list: every stream of every connector with its connections, top-level
// fields and live record counts, always labelled `connector:stream` (one name per stream on every
// page, whether or not another connector shares the bare name).
import type { GrantStream } from "../core/grant.js";
import { visibleScopes } from "../core/grant-scope.js";
import type { Connection, Store } from "../store/store.js";

export interface CatalogStream {
  /** Form key and stable id: `connector_key/stream`. */
  key: string;
  connectorKey: string;
  stream: string;
  label: string;
  description: string | null;
  fields: string[];
  timeField: string | null;
  connections: Connection[];
  /** Live records per connection id (0 for none). */
  counts: Record<string, number>;
}

export function streamLabel(connectorKey: string, stream: string): string {
  return `${connectorKey}:${stream}`;
}

export async function loadCatalog(store: Store): Promise<CatalogStream[]> {
  const [manifests, connections] = await Promise.all([store.listManifests(), store.listConnections()]);
  // Counts come from the store's per-(connection, stream) counters: one cheap read per stream.
  const counts = new Map<string, Record<string, number>>();
  await Promise.all(
    visibleScopes({ kind: "owner" }, { manifests, connections }).map(async (scope) => {
      counts.set(`${scope.connectorKey}/${scope.stream.name}`, await store.countRecords(scope));
    }),
  );
  const sorted = [...manifests].sort((a, b) => a.connector_key.localeCompare(b.connector_key));
  return sorted.flatMap((manifest) =>
    manifest.streams.map((stream) => {
      const key = `${manifest.connector_key}/${stream.name}`;
      return {
        key,
        connectorKey: manifest.connector_key,
        stream: stream.name,
        label: streamLabel(manifest.connector_key, stream.name),
        description: stream.description ?? null,
        fields: Object.keys(stream.schema.properties),
        timeField: stream.time_field ?? null,
        connections: connections
          .filter((c) => c.connector_key === manifest.connector_key)
          .sort((a, b) => a.display_name.localeCompare(b.display_name)),
        counts: counts.get(key) ?? {},
      };
    }),
  );
}

/** Records of `entry` over all its connections. */
export function totalRecords(entry: CatalogStream): number {
  return Object.values(entry.counts).reduce((sum, n) => sum + n, 0);
}

const MAX_LISTED_FIELDS = 8;

/**
 * One line per granted stream, e.g. `mail:messages (2 connections; subject, from; since 2024-01-01)`.
 * "all" says that it also covers what is added later, so the owner sees what a grant will reach.
 */
export function describeGrantStream(entry: GrantStream, label: string): string {
  const parts: string[] = [];
  parts.push(
    entry.connections === "all"
      ? "all connections, also future ones"
      : `${entry.connections.length} connection${entry.connections.length === 1 ? "" : "s"}`,
  );
  if (entry.fields === "all") parts.push("all fields, also future ones");
  else if (entry.fields.length > MAX_LISTED_FIELDS) parts.push(`${entry.fields.length} fields`);
  else parts.push(entry.fields.join(", "));
  const since = entry.time_range?.since?.slice(0, 10);
  const until = entry.time_range?.until?.slice(0, 10);
  if (since && until) parts.push(`${since} to ${until}`);
  else if (since) parts.push(`since ${since}`);
  else if (until) parts.push(`until ${until}`);
  return `${label} (${parts.join("; ")})`;
}
