// POST /revoke (RFC 7009). Revoking any token of an authorization revokes its grant, and with it
// every code and token of that family. The answer is 200 whether or not the token was known (or
// belonged to this client), so the endpoint is no oracle for valid tokens.
import type { Context } from "hono";
import type { RsEnv } from "../rs/env.js";
import { findSecret } from "./access.js";
import { noStore, oauthEndpoint, readForm, required } from "./form.js";

export function handleRevoke(c: Context<RsEnv>): Promise<Response> {
  return oauthEndpoint(c, async () => {
    const form = await readForm(c, ["token", "token_type_hint", "client_id", "client_secret"]);
    const token = required(form, "token");
    const clientId = form.get("client_id");
    const { store } = c.get("deps");
    const record =
      (await findSecret(store, "refresh", token)) ??
      (await findSecret(store, "access", token)) ??
      (await findSecret(store, "code", token));
    // Holding the token is enough to end it; a client_id that names another client is ignored.
    if (record && (clientId === undefined || record.client_id === clientId))
      await store.revokeGrant(record.grant_id, new Date().toISOString());
    noStore(c);
    return c.body(null, 200);
  });
}
