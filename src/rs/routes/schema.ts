// GET /v1/schema: the index of what the bearer can see (connectors, connections, streams, record
// counts) and, with `stream`, per-field capabilities; view=full adds descriptions and JSON Schema.
//
// Decisions where 20-rs-api.md is silent:
// - A stream row lives under its connector, once, however many connections carry it;
//   `record_counts` maps each visible connection to the records this bearer can see there.
// - compact without `stream`: the index only; compact with `stream`: plus `fields` (capabilities,
//   no descriptions); full (needs `stream`, and one connection): plus descriptions and the JSON
//   Schema narrowed to granted fields. The answer also echoes `view`.
// - Connectors and their streams come in connector_key order, then manifest order.
// - `stream` may be qualified (`connector_key:stream`, 30-mcp.md) to pick one connector's stream;
//   a row whose name another visible connector also has carries `qualified_name`.
import type { Hono } from "hono";
import { fieldCapabilities, grantedSchema } from "../../core/capabilities.js";
import { invalidRequest } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { connectionCount, narrowToConnection, selectStream, visibleScopes } from "../../core/grant-scope.js";
import { qualifiedStreamName } from "../../core/ids.js";
import type { SchemaAnswer, SchemaStream } from "../../core/wire.js";
import { noteRead, sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import {
  ambiguousConnection,
  checkStreamName,
  connectionIdParam,
  connectionNames,
  loadCatalog,
} from "../render.js";

export function registerSchema(app: Hono<RsEnv>): void {
  app.get("/v1/schema", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(["view", "stream", "connection_id"]);
    const view = params.oneOf("view", ["compact", "full"] as const, "compact") ?? "compact";
    const streamName = params.single("stream") || undefined;
    const connectionId = connectionIdParam(params);
    if (view === "full" && streamName === undefined) {
      throw invalidRequest(
        "view=full needs a stream: pass stream (and connection_id when the stream is on several connections).",
        "view",
      );
    }
    const auth = c.get("auth");
    noteRead(c, { route: "GET /v1/schema", stream: streamName ?? null, connectionId: connectionId ?? null });
    const { store } = c.get("deps");
    const catalog = await loadCatalog(store, auth);
    let scopes = visibleScopes(auth.bearer, catalog);
    // Names more than one visible connector has: their rows also carry the qualified name.
    const connectorsOf = new Map<string, Set<string>>();
    for (const s of scopes)
      connectorsOf.set(s.stream.name, (connectorsOf.get(s.stream.name) ?? new Set()).add(s.connectorKey));
    const shared = (name: string) => (connectorsOf.get(name)?.size ?? 0) > 1;
    if (streamName !== undefined) scopes = selectStream(scopes, checkStreamName(streamName));
    if (connectionId !== undefined) scopes = narrowToConnection(scopes, connectionId);
    if (view === "full" && connectionCount(scopes) > 1) {
      throw ambiguousConnection(scopes, { catalog, grantId: auth.grantId, what: "read the full schema" });
    }

    const names = connectionNames(catalog);
    const counts = await store.countRecordsMany(scopes);
    const countOf = new Map(scopes.map((s, i) => [s, counts[i]]));
    const byConnector = new Map<string, StreamScope[]>();
    for (const s of scopes) byConnector.set(s.connectorKey, [...(byConnector.get(s.connectorKey) ?? []), s]);
    const connectors: SchemaAnswer["connectors"] = [];
    for (const [connectorKey, group] of byConnector) {
      const manifest = catalog.manifests.find((m) => m.connector_key === connectorKey);
      const connectionIds = [...new Set(group.flatMap((s) => s.connectionIds))].sort();
      const streams: SchemaStream[] = [];
      for (const scope of group)
        streams.push(
          streamRow(scope, {
            counts: countOf.get(scope) ?? {},
            detailed: streamName !== undefined,
            full: view === "full",
            qualified: shared(scope.stream.name),
          }),
        );
      connectors.push({
        connector_key: connectorKey,
        display_name: manifest?.display_name ?? connectorKey,
        connections: connectionIds.map((id) => ({ connection_id: id, display_name: names.get(id) ?? id })),
        streams,
      });
    }
    const answer: SchemaAnswer = {
      object: "schema",
      bearer: auth.grantId ? { kind: "client", grant_id: auth.grantId } : { kind: auth.bearer.kind },
      view,
      connectors,
    };
    return sendJson(c, answer);
  });
}

function streamRow(
  scope: StreamScope,
  options: { counts: Record<string, number>; detailed: boolean; full: boolean; qualified: boolean },
): SchemaStream {
  const s = scope.stream;
  const row: SchemaStream = {
    name: s.name,
    ...(options.qualified ? { qualified_name: qualifiedStreamName(scope.connectorKey, s.name) } : {}),
    ...(s.display_name ? { display_name: s.display_name } : {}),
    primary_key: s.primary_key,
    ...(s.cursor_field ? { cursor_field: s.cursor_field } : {}),
    ...(s.time_field ? { time_field: s.time_field } : {}),
    ...(s.title_field ? { title_field: s.title_field } : {}),
    record_counts: options.counts,
  };
  if (options.detailed) row.fields = fieldCapabilities(s, scope.fields, { full: options.full });
  if (options.full) row.schema = grantedSchema(s, scope.fields);
  return row;
}
