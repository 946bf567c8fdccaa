// Owner endpoints for connectors (manifests), connections and the access log; every route under
// /v1/owner needs the owner token (app.ts answers a client token with 403 owner_only).
//
// Decisions where 20-rs-api.md is silent:
// - POST /v1/owner/connectors answers 200 with a summary; a bad manifest is 422 manifest_invalid
//   whose message and `problems` list up to 10 problems (`problem_count` has the total).
// - POST /v1/owner/connections is idempotent per (connector_key, display_name): 201 with the
//   same connection each time. DELETE answers `{object:"connection", connection_id, deleted:true}`.
// - GET /v1/owner/access-log takes `limit` (1–1,000, default 100) and `grant_id`; entries are
//   `{at, grant_id, client_name, route, stream, connection_id, record_count, bytes, status}`,
//   newest first; `route` is `mcp:<tool>` for reads the MCP adapter made.
import type { Hono } from "hono";
import { z } from "zod";
import { invalidRequest, PdppError } from "../../core/errors.js";
import { connectionNotFound } from "../../core/grant-scope.js";
import { GRANT_ID_RE, isConnectorKey } from "../../core/ids.js";
import { validateManifest } from "../../core/manifest-validate.js";
import { readJsonBody } from "../body.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { checkConnectionId, ownerList, parseBody } from "./owner-common.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what labels must not hold
const LABEL_RE = /^[^\u0000-\u001f\u007f]{1,200}$/;

const connectionBody = z.strictObject({
  connector_key: z.string(),
  display_name: z.string().regex(LABEL_RE, "must be 1–200 printable characters"),
});

export function registerOwnerConnections(app: Hono<RsEnv>): void {
  app.post("/v1/owner/connectors", async (c) => {
    const manifest = validateManifest(await readJsonBody(c.req.raw));
    await c.get("deps").store.putManifest(manifest);
    return c.json({
      object: "connector",
      connector_key: manifest.connector_key,
      display_name: manifest.display_name,
      version: manifest.version,
      streams: manifest.streams.map((s) => s.name),
    });
  });

  app.get("/v1/owner/connectors", async (c) => {
    new Params(c.req.url).allowOnly([]);
    const manifests = await c.get("deps").store.listManifests();
    return c.json(ownerList(manifests));
  });

  app.post("/v1/owner/connections", async (c) => {
    const body = parseBody(connectionBody, await readJsonBody(c.req.raw));
    const { store } = c.get("deps");
    if (!isConnectorKey(body.connector_key) || !(await store.getManifest(body.connector_key))) {
      throw new PdppError(
        "connector_not_found",
        "no such connector; register its manifest with POST /v1/owner/connectors.",
        {
          param: "connector_key",
        },
      );
    }
    const connection = await store.ensureConnection(body.connector_key, body.display_name);
    return c.json({ object: "connection", ...connection }, 201);
  });

  app.get("/v1/owner/connections", async (c) => {
    new Params(c.req.url).allowOnly([]);
    const connections = await c.get("deps").store.listConnections();
    return c.json(ownerList(connections.map((x) => ({ object: "connection", ...x }))));
  });

  app.delete("/v1/owner/connections/:id", async (c) => {
    const id = checkConnectionId(c.req.param("id"));
    if (!(await c.get("deps").store.deleteConnection(id))) throw connectionNotFound();
    return c.json({ object: "connection", connection_id: id, deleted: true });
  });

  app.get("/v1/owner/access-log", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(["limit", "grant_id"]);
    const limit = params.int("limit", { min: 1, max: 1000, fallback: 100 }) ?? 100;
    const grantId = params.single("grant_id") || undefined;
    if (grantId !== undefined && !GRANT_ID_RE.test(grantId))
      throw invalidRequest("grant_id looks like grt_ followed by 16 hex digits.", "grant_id");
    const entries = await c.get("deps").store.listAccessLog({ limit, grantId });
    return c.json(ownerList(entries));
  });
}
