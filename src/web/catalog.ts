// What the owner pages list: every stream of every connector with its connections and top-level
// fields, labelled `stream` when the name is unique and `connector:stream` where names are shared.
import type { GrantStream } from "../core/grant.js";
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
}

/** Labels qualified with the connector only where two connectors share a stream name. */
export function streamLabel(counts: Map<string, number>, connectorKey: string, stream: string): string {
  return (counts.get(stream) ?? 0) > 1 ? `${connectorKey}:${stream}` : stream;
}

export async function loadCatalog(store: Store): Promise<CatalogStream[]> {
  const [manifests, connections] = await Promise.all([store.listManifests(), store.listConnections()]);
  const counts = new Map<string, number>();
  for (const m of manifests) for (const s of m.streams) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  const sorted = [...manifests].sort((a, b) => a.connector_key.localeCompare(b.connector_key));
  return sorted.flatMap((manifest) =>
    manifest.streams.map((stream) => ({
      key: `${manifest.connector_key}/${stream.name}`,
      connectorKey: manifest.connector_key,
      stream: stream.name,
      label: streamLabel(counts, manifest.connector_key, stream.name),
      description: stream.description ?? null,
      fields: Object.keys(stream.schema.properties),
      timeField: stream.time_field ?? null,
      connections: connections
        .filter((c) => c.connector_key === manifest.connector_key)
        .sort((a, b) => a.display_name.localeCompare(b.display_name)),
    })),
  );
}

/** One line per granted stream, e.g. `mail (2 connections; subject, from; since 2024-01-01)`. */
export function describeGrantStream(entry: GrantStream, label: string): string {
  const parts: string[] = [];
  parts.push(
    entry.connections === "all"
      ? "all connections"
      : `${entry.connections.length} connection${entry.connections.length === 1 ? "" : "s"}`,
  );
  parts.push(entry.fields === "all" ? "all fields" : entry.fields.join(", "));
  const since = entry.time_range?.since?.slice(0, 10);
  const until = entry.time_range?.until?.slice(0, 10);
  if (since && until) parts.push(`${since} to ${until}`);
  else if (since) parts.push(`since ${since}`);
  else if (until) parts.push(`until ${until}`);
  return `${label} (${parts.join("; ")})`;
}
