// Hostile /token, /revoke and bearer use (both backends): wrong verifier, redirect-URI and client
// mismatch, code replay, refresh replay revoking the family, tokens for another resource, OAuth
// and client tokens on owner routes, no-store, and revocation.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../../src/core/ids.js";
import { createApp } from "../../src/rs/app.js";
import { testBackends } from "../helpers/backends.js";
import {
  codeFor,
  exchange,
  MCP_URL,
  mcpStatus,
  type OAuthWorld,
  openOAuthWorld,
  PUBLIC_URL,
  postForm,
  registerClient,
  VERIFIER,
} from "./oauth-world.js";

for (const backend of testBackends()) {
  describe(`OAuth tokens against hostile use (${backend.name})`, () => {
    let world: OAuthWorld;
    let clientId: string;
    before(async () => {
      world = await openOAuthWorld(backend);
      clientId = await registerClient(world);
    });
    after(async () => world.cleanup());

    it("a wrong verifier, redirect URI, client or resource fails without spending the code", async () => {
      const { code } = await codeFor(world, clientId);
      const other = await registerClient(world);
      const attempts: [Record<string, string>, string, string][] = [
        [{ code_verifier: `${VERIFIER}x` }, "invalid_grant", "wrong verifier"],
        [{ code_verifier: "" }, "invalid_request", "missing verifier"],
        [{ redirect_uri: "http://127.0.0.1:1/callback" }, "invalid_grant", "another redirect URI"],
        [{ client_id: other }, "invalid_grant", "another client"],
        [{ resource: "https://other.example/mcp" }, "invalid_target", "another resource"],
        [{ grant_type: "password" }, "unsupported_grant_type", "another grant type"],
      ];
      for (const [extra, error, why] of attempts) {
        const r = await exchange(world, clientId, code, extra);
        assert.equal(r.status, 400, why);
        assert.equal(r.json.error, error, why);
        assert.equal(r.headers.get("cache-control"), "no-store", why);
      }
      const ok = await exchange(world, clientId, code);
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      assert.equal(ok.headers.get("cache-control"), "no-store");
      assert.equal(ok.headers.get("pragma"), "no-cache");
      assert.equal(ok.json.token_type, "Bearer");
    });

    it("the token answer's scope is what was granted, never what the client asked for (RFC 6749 §3.3)", async () => {
      const { code } = await codeFor(world, clientId, { scope: "openid owner admin mail:messages" });
      const issued = await exchange(world, clientId, code);
      assert.equal(issued.status, 200, JSON.stringify(issued.json));
      assert.equal(issued.json.scope, "chat:messages");
      const refreshed = await postForm(world, "/token", {
        grant_type: "refresh_token",
        refresh_token: issued.json.refresh_token,
        client_id: clientId,
        scope: "owner admin",
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
      assert.equal(refreshed.json.scope, "chat:messages");
    });

    it("an expired code is refused", async () => {
      const { code } = await codeFor(world, clientId);
      const record = await world.fx.store.getOAuthToken(hashToken(code));
      const stale = "pdpp_ac_expired-code-for-test";
      await world.fx.store.putOAuthToken({
        ...(record as NonNullable<typeof record>),
        token_hash: hashToken(stale),
        expires_at: "2001-01-01T00:00:00.000Z",
      });
      const r = await exchange(world, clientId, stale);
      assert.equal(r.status, 400);
      assert.equal(r.json.error, "invalid_grant");
    });

    it("a replayed code fails and revokes the tokens it issued", async () => {
      const { code } = await codeFor(world, clientId);
      const first = await exchange(world, clientId, code);
      assert.equal(first.status, 200);
      assert.equal(await mcpStatus(world, first.json.access_token), 200);
      const replay = await exchange(world, clientId, code);
      assert.equal(replay.status, 400);
      assert.equal(replay.json.error, "invalid_grant");
      assert.equal(await mcpStatus(world, first.json.access_token), 401);
      const refresh = await postForm(world, "/token", {
        grant_type: "refresh_token",
        refresh_token: first.json.refresh_token,
        client_id: clientId,
      });
      assert.equal(refresh.json.error, "invalid_grant");
    });

    it("a replayed refresh token revokes the whole family", async () => {
      const { code } = await codeFor(world, clientId);
      const first = await exchange(world, clientId, code);
      const refresh = (token: string) =>
        postForm(world, "/token", { grant_type: "refresh_token", refresh_token: token, client_id: clientId });
      const second = await refresh(first.json.refresh_token);
      assert.equal(second.status, 200);
      assert.equal(second.headers.get("cache-control"), "no-store");
      assert.equal(await mcpStatus(world, second.json.access_token), 200);
      const stolen = await refresh(first.json.refresh_token);
      assert.equal(stolen.status, 400);
      assert.equal(stolen.json.error, "invalid_grant");
      assert.equal(await mcpStatus(world, second.json.access_token), 401);
      assert.equal(await mcpStatus(world, first.json.access_token), 401);
      assert.equal((await refresh(second.json.refresh_token)).json.error, "invalid_grant");
      const otherClient = await registerClient(world);
      const fresh = await exchange(world, clientId, (await codeFor(world, clientId)).code);
      const wrongClient = await postForm(world, "/token", {
        grant_type: "refresh_token",
        refresh_token: fresh.json.refresh_token,
        client_id: otherClient,
      });
      assert.equal(wrongClient.json.error, "invalid_grant");
    });

    it("an access token works only for this server's /mcp (audience) and expires", async () => {
      const { code } = await codeFor(world, clientId);
      const { access_token } = (await exchange(world, clientId, code)).json;
      // The same store served under another public URL is another resource: the token is refused.
      const elsewhere = createApp({ store: world.fx.store, publicUrl: "http://localhost:9999" });
      const res = await elsewhere.request("http://localhost:9999/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, "invalid_token");
      // An expired access token (stored with a past expiry) is a 401 token_expired.
      const stale = "pdpp_at_expired-token-for-test";
      const record = await world.fx.store.getOAuthToken(hashToken(access_token));
      await world.fx.store.putOAuthToken({
        ...(record as NonNullable<typeof record>),
        token_hash: hashToken(stale),
        expires_at: "2001-01-01T00:00:00.000Z",
      });
      const expired = await world.fx.call("/v1/schema", { token: stale });
      assert.equal(expired.status, 401);
      assert.equal(expired.json.error.code, "token_expired");
      assert.equal(await mcpStatus(world, "pdpp_at_unknown"), 401);
    });

    it("OAuth and client tokens are refused on owner routes; OAuth tokens read /v1 under their grant", async () => {
      const { code } = await codeFor(world, clientId);
      const { access_token } = (await exchange(world, clientId, code)).json;
      const pasted = await world.fx.grant([
        { stream: "messages", connector_key: "chat", connections: "all", fields: "all" },
      ]);
      for (const token of [access_token, pasted.token]) {
        for (const [path, method] of [
          ["/v1/owner/grants", "GET"],
          ["/v1/owner/grants", "POST"],
          ["/v1/owner/connections", "GET"],
          ["/v1/owner/access-log", "GET"],
        ]) {
          const r = await world.fx.call(path, { token, method, body: method === "POST" ? "{}" : undefined });
          assert.equal(r.status, 403, `${path} ${r.text}`);
          assert.equal(r.json.error.code, "owner_only");
        }
      }
      const schema = await world.fx.call("/v1/schema", { token: access_token });
      assert.equal(schema.status, 200);
      const hits = await world.fx.call("/v1/search?q=quarterly", { token: access_token });
      assert.equal(hits.status, 200, hits.text);
      assert.ok(hits.json.data.length > 0);
      for (const h of hits.json.data) assert.equal(h.connector_key, "chat", "mail was not granted");
      const tokenInfo = await world.fx.call("/v1/token", { token: access_token });
      assert.equal(tokenInfo.json.kind, "client");
      // Owner tokens stay refused at /mcp.
      assert.equal(await mcpStatus(world, world.fx.owner), 403);
    });

    it("revocation (RFC 7009) ends the authorization; unknown tokens are answered 200 alike", async () => {
      const { code } = await codeFor(world, clientId);
      const pair = (await exchange(world, clientId, code)).json;
      const unknown = await postForm(world, "/revoke", { token: "pdpp_rt_nope", client_id: clientId });
      assert.equal(unknown.status, 200);
      const foreign = await postForm(world, "/revoke", {
        token: pair.refresh_token,
        client_id: "pdpp_cl_other",
      });
      assert.equal(foreign.status, 200);
      assert.equal(await mcpStatus(world, pair.access_token), 200, "another client cannot revoke it");
      const revoked = await postForm(world, "/revoke", { token: pair.refresh_token, client_id: clientId });
      assert.equal(revoked.status, 200);
      assert.equal(await mcpStatus(world, pair.access_token), 401);
      const missing = await postForm(world, "/revoke", { client_id: clientId });
      assert.equal(missing.json.error, "invalid_request");
    });

    it("token requests must be forms without repeated parameters", async () => {
      const json = await world.fetch(`${PUBLIC_URL}/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "authorization_code" }),
      });
      assert.equal(json.status, 400);
      assert.equal(((await json.json()) as { error: string }).error, "invalid_request");
      const twice = await world.fetch(`${PUBLIC_URL}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=x",
      });
      assert.equal(((await twice.json()) as { error: string }).error, "invalid_request");
      assert.equal(twice.headers.get("cache-control"), "no-store");
      const big = await world.fetch(`${PUBLIC_URL}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=refresh_token&pad=${"x".repeat(70_000)}`,
      });
      assert.equal(big.status, 413);
      assert.equal(MCP_URL, `${PUBLIC_URL}/mcp`);
    });
  });
}
