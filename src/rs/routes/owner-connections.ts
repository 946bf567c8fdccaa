// Owner endpoints for connectors (manifests), connections and the access log; every route under
// /v1/owner needs the owner token (a client token gets 403 owner_only).
import type { Hono } from "hono";
import { z } from "zod";
import { invalidRequest, PdppError } from "../../core/errors.js";
import { connectionNotFound } from "../../core/grant-scope.js";
import { GRANT_ID_RE, isConnectionId, isConnectorKey } from "../../core/ids.js";
import { validateManifest } from "../../core/manifest-validate.js";
import { requireOwner } from "../auth.js";
import { readJsonBody } from "../body.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what labels must not hold
const LABEL_RE = /^[^\u0000-\u001f\u007f]{1,200}$/;

const connectionBody = z.strictObject({
  connector_key: z.string(),
  display_name: z.string().regex(LABEL_RE, "must be 1–200 printable characters"),
});

/** zod failure → 400 invalid_request naming the first bad member. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue.path.join(".") || "body";
  throw invalidRequest(`${path}: ${issue.message}.`, path);
}

export function checkConnectionId(id: string): string {
  if (!isConnectionId(id)) throw connectionNotFound();
  return id;
}

export function registerOwnerConnections(app: Hono<RsEnv>): void {
  app.use("/v1/owner/*", async (c, next) => {
    requireOwner(c.get("auth"));
    await next();
  });

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
    return c.json({
      object: "list",
      data: manifests,
      has_more: false,
      next_cursor: null,
      meta: { warnings: [] },
    });
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
    return c.json({
      object: "list",
      data: connections.map((x) => ({ object: "connection", ...x })),
      has_more: false,
      next_cursor: null,
      meta: { warnings: [] },
    });
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
    return c.json({
      object: "list",
      data: entries,
      has_more: false,
      next_cursor: null,
      meta: { warnings: [] },
    });
  });
}
