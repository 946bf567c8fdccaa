// The OAuth flow end to end with the MCP SDK's own client (auth()): 401 → protected-resource
// metadata → server metadata → DCR → /authorize → consent approval → code → token →
// tools/call search sees only the granted stream → refresh → revocation → 401. Both backends.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokensSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { approveAuthorization, getPendingAuthorization } from "../../src/oauth/pending.js";
import { testBackends } from "../helpers/backends.js";
import { call } from "../mcp/helpers.js";
import {
  MCP_URL,
  MemoryProvider,
  type OAuthWorld,
  ONLY_CHAT,
  openOAuthWorld,
  PUBLIC_URL,
  pendingIdFrom,
  postForm,
  REDIRECT,
} from "./oauth-world.js";

for (const backend of testBackends()) {
  describe(`OAuth flow with the MCP SDK client (${backend.name})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await openOAuthWorld(backend);
    });
    after(async () => world.cleanup());

    it("publishes both metadata documents, valid by the SDK's schemas", async () => {
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
      ]) {
        const prm = OAuthProtectedResourceMetadataSchema.parse(
          await (await world.fetch(`${PUBLIC_URL}${path}`)).json(),
        );
        assert.equal(prm.resource, MCP_URL);
        assert.deepEqual(prm.authorization_servers, [PUBLIC_URL]);
      }
      const as = (await (
        await world.fetch(`${PUBLIC_URL}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      const meta = OAuthMetadataSchema.parse(as);
      assert.equal(meta.issuer, PUBLIC_URL);
      assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
      assert.equal(meta.registration_endpoint, `${PUBLIC_URL}/register`);
      assert.equal(meta.revocation_endpoint, `${PUBLIC_URL}/revoke`);
      assert.equal(as.client_id_metadata_document_supported, true);
      assert.equal(as.authorization_response_iss_parameter_supported, true);
    });

    it("runs 401 → discovery → DCR → consent → token → search (granted stream only) → refresh → revoke", async () => {
      const provider = new MemoryProvider();
      // 401 from /mcp points at the protected-resource metadata.
      const unauth = await world.fetch(MCP_URL, { method: "POST", body: "{}" });
      assert.equal(unauth.status, 401);
      assert.match(
        unauth.headers.get("www-authenticate") ?? "",
        /resource_metadata="http:\/\/127\.0\.0\.1:7662\/\.well-known\/oauth-protected-resource"/,
      );

      assert.equal(await auth(provider, { serverUrl: MCP_URL, fetchFn: world.fetch }), "REDIRECT");
      const url = provider.authorizationUrl as URL;
      assert.equal(url.origin + url.pathname, `${PUBLIC_URL}/authorize`);
      assert.equal(url.searchParams.get("code_challenge_method"), "S256");
      assert.equal(url.searchParams.get("resource"), MCP_URL);
      const pendingId = await pendingIdFrom(world, url);
      const pending = await getPendingAuthorization(world.deps, pendingId);
      assert.equal(pending?.clientName, "Test MCP Client");
      assert.equal(pending?.redirectUri, REDIRECT);
      assert.equal(pending?.redirectHost, "127.0.0.1:33418");
      assert.equal(pending?.resource, MCP_URL);

      const { redirectTo, grantId } = await approveAuthorization(world.deps, pendingId, ONLY_CHAT);
      const back = new URL(redirectTo);
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get("state"), "state-xyz");
      assert.equal(back.searchParams.get("iss"), PUBLIC_URL);
      const code = back.searchParams.get("code") as string;
      assert.match(code, /^pdpp_ac_/);
      assert.equal(
        await auth(provider, { serverUrl: MCP_URL, authorizationCode: code, fetchFn: world.fetch }),
        "AUTHORIZED",
      );
      const tokens = OAuthTokensSchema.parse(provider.saved);
      assert.match(tokens.access_token, /^pdpp_at_/);
      assert.equal(tokens.expires_in, 3600);
      assert.match(tokens.refresh_token ?? "", /^pdpp_rt_/);
      const grant = await world.fx.store.getGrant(grantId);
      assert.equal(grant?.client_name, "Test MCP Client");

      const connect = async () => {
        const client = new Client({ name: "oauth-test", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: world.fetch }),
        );
        return client;
      };
      const client = await connect();
      const found = await call(client, "search", { query: "quarterly" });
      assert.equal(found.isError, false, found.text);
      const results = found.structured.results as { id: string }[];
      assert.ok(results.length > 0, found.text);
      // The fixture's mail also says "quarterly": only the granted chat stream may answer.
      for (const r of results) assert.match(r.id, new RegExp(`^${world.fx.chat}/messages:`));
      await client.close();

      // Refresh: a new pair, the old refresh token is spent.
      const refreshed = await postForm(world, "/token", {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token as string,
        client_id: (provider.info as { client_id: string }).client_id,
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
      assert.equal(refreshed.headers.get("cache-control"), "no-store");
      assert.notEqual(refreshed.json.access_token, tokens.access_token);
      assert.notEqual(refreshed.json.refresh_token, tokens.refresh_token);
      provider.saved = refreshed.json;
      const again = await connect();
      assert.equal((await call(again, "search", { query: "budget" })).isError, false);

      // The owner revokes the grant (console / owner API): the very next call is a 401.
      const revoked = await world.fx.call(`/v1/owner/grants/${grantId}/revoke`, { method: "POST" });
      assert.equal(revoked.status, 200, revoked.text);
      const res = await world.fetch(MCP_URL, {
        method: "POST",
        headers: {
          authorization: `Bearer ${refreshed.json.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /resource_metadata=/);
      await again.close().catch(() => {});
    });
  });
}
