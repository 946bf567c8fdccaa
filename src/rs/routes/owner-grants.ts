// Owner grant endpoints: create (validated against manifests and connections; the client token
// is returned once and stored only as a hash), list, get and revoke.
import type { Hono } from "hono";
import { z } from "zod";
import { invalidRequest, PdppError } from "../../core/errors.js";
import type { Grant, GrantStream } from "../../core/grant.js";
import { connectionNotFound, streamNotFound } from "../../core/grant-scope.js";
import { GRANT_ID_RE, hashToken, isFieldPath, newGrantId, newToken } from "../../core/ids.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import type { Store, StoredGrant } from "../../store/store.js";
import { readJsonBody } from "../body.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { ownerList, parseBody } from "./owner-common.js";

const isoTime = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO-8601 date-time");

const grantBody = z.strictObject({
  client_name: z.string().min(1).max(100),
  purpose: z.string().max(2000).default(""),
  expires_at: isoTime.nullable().default(null),
  streams: z
    .array(
      z.strictObject({
        stream: z.string(),
        connector_key: z.string(),
        connections: z.union([z.literal("all"), z.array(z.string()).min(1).max(1000)]).default("all"),
        fields: z.union([z.literal("all"), z.array(z.string()).min(1).max(1000)]).default("all"),
        time_range: z
          .strictObject({ since: isoTime.nullable().optional(), until: isoTime.nullable().optional() })
          .nullable()
          .optional(),
      }),
    )
    .min(1)
    .max(500),
});

const iso = (v: string | null | undefined) => (v ? new Date(Date.parse(v)).toISOString() : null);

/** Check every grant stream against the store's manifests and connections. */
async function checkGrantStreams(store: Store, streams: GrantStream[]): Promise<GrantStream[]> {
  const seen = new Set<string>();
  const connections = await store.listConnections();
  const out: GrantStream[] = [];
  for (const [i, entry] of streams.entries()) {
    const key = `${entry.connector_key}\u0000${entry.stream}`;
    if (seen.has(key))
      throw invalidRequest(
        `streams.${i}: ${entry.stream} of ${entry.connector_key} is listed twice.`,
        `streams.${i}`,
      );
    seen.add(key);
    const manifest = await store.getManifest(entry.connector_key);
    if (!manifest)
      throw new PdppError(
        "connector_not_found",
        `streams.${i}: no connector ${entry.connector_key.slice(0, 64)}.`,
        { param: `streams.${i}.connector_key` },
      );
    const def = manifest.streams.find((s) => s.name === entry.stream);
    if (!def) throw streamNotFound();
    if (entry.connections !== "all") {
      for (const id of entry.connections) {
        if (!connections.some((c) => c.connection_id === id && c.connector_key === entry.connector_key))
          throw connectionNotFound();
      }
    }
    if (entry.fields !== "all") {
      for (const f of entry.fields) {
        if (!isFieldPath(f) || !fieldSchemaAt(def, f)) {
          throw invalidRequest(
            `streams.${i}.fields: ${entry.stream} has no field ${f.slice(0, 64)}.`,
            `streams.${i}.fields`,
          );
        }
      }
    }
    const since = iso(entry.time_range?.since);
    const until = iso(entry.time_range?.until);
    if (since && until && since >= until)
      throw invalidRequest(`streams.${i}.time_range: since must be before until.`, `streams.${i}.time_range`);
    out.push({
      stream: entry.stream,
      connector_key: entry.connector_key,
      connections: entry.connections === "all" ? "all" : [...new Set(entry.connections)].sort(),
      fields: entry.fields === "all" ? "all" : [...new Set(entry.fields)],
      time_range: since || until ? { since, until } : null,
    });
  }
  return out;
}

function publicGrant(grant: StoredGrant): Grant & { object: "grant" } {
  const { token_hash: _hash, ...rest } = grant;
  return { object: "grant", ...rest };
}

function grantNotFound(): PdppError {
  return new PdppError("grant_not_found", "no such grant.", { param: "grant_id" });
}

function checkGrantId(id: string): string {
  if (!GRANT_ID_RE.test(id)) throw grantNotFound();
  return id;
}

export function registerOwnerGrants(app: Hono<RsEnv>): void {
  app.post("/v1/owner/grants", async (c) => {
    const body = parseBody(grantBody, await readJsonBody(c.req.raw));
    const { store } = c.get("deps");
    const streams = await checkGrantStreams(store, body.streams as GrantStream[]);
    const token = newToken("client");
    const grant: StoredGrant = {
      grant_id: newGrantId(),
      client_name: body.client_name,
      purpose: body.purpose,
      created_at: new Date().toISOString(),
      expires_at: iso(body.expires_at),
      revoked_at: null,
      streams,
      token_hash: hashToken(token),
    };
    await store.createGrant(grant);
    // The only time the client token is ever shown.
    return c.json({ ...publicGrant(grant), token }, 201);
  });

  app.get("/v1/owner/grants", async (c) => {
    new Params(c.req.url).allowOnly([]);
    const grants = await c.get("deps").store.listGrants();
    return c.json(ownerList(grants.map(publicGrant)));
  });

  app.get("/v1/owner/grants/:id", async (c) => {
    const grant = await c.get("deps").store.getGrant(checkGrantId(c.req.param("id")));
    if (!grant) throw grantNotFound();
    return c.json(publicGrant(grant));
  });

  app.post("/v1/owner/grants/:id/revoke", async (c) => {
    const id = checkGrantId(c.req.param("id"));
    const { store } = c.get("deps");
    if (!(await store.revokeGrant(id, new Date().toISOString()))) throw grantNotFound();
    return c.json(publicGrant((await store.getGrant(id)) as StoredGrant));
  });
}
