// Owner grant endpoints: create (validated in ../grant-create.ts; the client token is returned
// once and stored only as a hash), list, get and revoke.
import type { Hono } from "hono";
import { PdppError } from "../../core/errors.js";
import type { Grant } from "../../core/grant.js";
import { GRANT_ID_RE } from "../../core/ids.js";
import type { StoredGrant } from "../../store/store.js";
import { readJsonBody } from "../body.js";
import type { RsEnv } from "../env.js";
import { grantBody, prepareGrant } from "../grant-create.js";
import { Params } from "../params.js";
import { ownerList, parseBody } from "./owner-common.js";

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
    const { client_name: clientName, ...choice } = parseBody(grantBody, await readJsonBody(c.req.raw));
    const { store } = c.get("deps");
    const { grant, token } = await prepareGrant(store, choice, { clientName });
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
