// Fit `pdpp grant create`'s shared --connections and --fields to each --stream: a connection belongs to
// one connector and a field to one stream's schema, so each stream keeps the ones that are its own.
import { PdppError } from "../core/errors.js";
import type { GrantStream } from "../core/grant.js";
import { fieldSchemaAt, type Manifest } from "../core/manifest.js";
import type { GrantRequest } from "./grant-options.js";

export interface FitInput {
  connections: { connection_id: string; connector_key: string }[];
  manifests: Manifest[];
}

/**
 * Each stream gets the listed connections of its own connector and the listed fields its schema has.
 * Every listed connection and field must land somewhere, and every stream must keep at least one of
 * each list, so a typo or a wrong id is an error that names it instead of a silently narrower grant.
 */
export function fitGrantRequest(request: GrantRequest, input: FitInput): GrantRequest {
  const label = (s: GrantStream) => `${s.connector_key}:${s.stream}`;
  for (const entry of request.streams) {
    const manifest = input.manifests.find((m) => m.connector_key === entry.connector_key);
    if (!manifest) {
      const known = input.manifests.map((m) => m.connector_key).sort();
      throw usage(
        `--stream ${label(entry)}: no connector ${entry.connector_key} in this store` +
          (known.length > 0 ? ` (connectors: ${known.join(", ")}).` : "; import something first."),
      );
    }
    if (!manifest.streams.some((s) => s.name === entry.stream)) {
      const names = manifest.streams.map((s) => `${entry.connector_key}:${s.name}`);
      throw usage(
        `--stream ${label(entry)}: ${entry.connector_key} has no such stream (${names.join(", ")}).`,
      );
    }
  }
  const streams = request.streams.map((entry) => ({ ...entry }));
  const first = request.streams[0];
  const listedConnections = first && first.connections !== "all" ? first.connections : null;
  if (listedConnections) {
    for (const id of listedConnections) {
      const connection = input.connections.find((c) => c.connection_id === id);
      if (!connection) throw usage(`--connections: no connection ${id}; see pdpp connections list.`);
      if (!streams.some((s) => s.connector_key === connection.connector_key)) {
        throw usage(
          `--connections: ${id} is a ${connection.connector_key} connection, and no --stream is of ${connection.connector_key}.`,
        );
      }
    }
    for (const entry of streams) {
      const own = listedConnections.filter((id) =>
        input.connections.some((c) => c.connection_id === id && c.connector_key === entry.connector_key),
      );
      if (own.length === 0) {
        throw usage(
          `--connections lists no ${entry.connector_key} connection for --stream ${label(entry)}; add one of its connections (pdpp connections list) or grant that stream separately.`,
        );
      }
      entry.connections = own;
    }
  }
  const listedFields = first && first.fields !== "all" ? first.fields : null;
  if (listedFields) {
    const defs = streams.map((entry) => {
      const manifest = input.manifests.find((m) => m.connector_key === entry.connector_key);
      return manifest!.streams.find((s) => s.name === entry.stream)!;
    });
    for (const field of listedFields) {
      if (!defs.some((def) => fieldSchemaAt(def, field))) {
        const available = defs.map(
          (def, i) => `${label(streams[i]!)}: ${Object.keys(def.schema.properties).join(", ")}`,
        );
        throw usage(`--fields: no granted stream has a field ${field} (${available.join("; ")}).`);
      }
    }
    streams.forEach((entry, i) => {
      const own = listedFields.filter((field) => fieldSchemaAt(defs[i]!, field));
      if (own.length === 0) {
        throw usage(
          `--fields names no field of --stream ${label(entry)} (it has ${Object.keys(defs[i]!.schema.properties).join(", ")}).`,
        );
      }
      entry.fields = own;
    });
  }
  return { ...request, streams };
}

function usage(message: string): PdppError {
  return new PdppError("invalid_request", message);
}
