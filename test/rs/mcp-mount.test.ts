// RS HTTP: the hosted /mcp mount's bearer rules, 405s and the protected-resource metadata.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, setupFixture } from "./harness.js";

const METADATA = 'Bearer resource_metadata="http://127.0.0.1:7662/.well-known/oauth-protected-resource"';

for (const backend of testBackends()) {
  describe(`rs /mcp mount (${backend.name})`, () => {
    let fx: Fixture;
    let bare: Fixture;
    let cleanup: () => Promise<void>;
    const seen: { token: string; publicUrl: string; body: string }[] = [];
    before(async () => {
      const opened = await backend.open();
      cleanup = opened.cleanup;
      fx = await setupFixture(opened.store, {
        mcp: async (request, context) => {
          seen.push({ ...context, body: await request.text() });
          return Response.json({ jsonrpc: "2.0", id: 1, result: {} });
        },
      });
      bare = { ...fx, app: (await import("../../src/rs/app.js")).createApp({ store: opened.store }) };
    });
    after(async () => cleanup());

    it("answers 401 with WWW-Authenticate for a missing or unknown token", async () => {
      for (const token of [null, "pdpp_ct_unknown"]) {
        const r = await fx.call("/mcp", { method: "POST", token, body: "{}" });
        assertError(r, 401, token ? "invalid_token" : "missing_token");
        assert.equal(r.headers.get("www-authenticate"), METADATA);
      }
      const expired = await fx.grant(
        [{ stream: "messages", connector_key: "mail", connections: "all", fields: "all" }],
        { expires_at: "2001-01-01T00:00:00Z" },
      );
      const late = await fx.call("/mcp", { method: "POST", token: expired.token, body: "{}" });
      assertError(late, 401, "token_expired");
      assert.equal(late.headers.get("www-authenticate"), METADATA);
      assert.equal(seen.length, 0);
    });

    it("refuses the owner token and revoked grants", async () => {
      assertError(await fx.call("/mcp", { method: "POST", body: "{}" }), 403, "owner_token_refused");
      const { token, grant_id } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      await fx.call(`/v1/owner/grants/${grant_id}/revoke`, { method: "POST" });
      assertError(await fx.call("/mcp", { method: "POST", token, body: "{}" }), 403, "grant_revoked");
      assert.equal(seen.length, 0);
    });

    it("hands a valid client request to the MCP handler with its token", async () => {
      const { token } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      const r = await fx.call("/mcp", {
        method: "POST",
        token,
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { jsonrpc: "2.0", id: 1, result: {} });
      assert.match(r.headers.get("request-id") ?? "", /^req_/);
      assert.deepEqual(seen.at(-1), {
        token,
        publicUrl: "http://127.0.0.1:7662",
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      const off = await bare.app.request("/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: "{}",
      });
      assert.equal(off.status, 404);
    });

    it("answers GET and DELETE /mcp with 405", async () => {
      for (const method of ["GET", "DELETE"]) {
        const r = await fx.call("/mcp", { method });
        assertError(r, 405, "method_not_allowed");
        assert.equal(r.headers.get("allow"), "POST");
      }
    });

    it("serves RFC 9728 protected-resource metadata without a token", async () => {
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
      ]) {
        const r = await fx.call(path, { token: null });
        assert.equal(r.status, 200);
        assert.equal(r.json.resource, "http://127.0.0.1:7662/mcp");
        assert.deepEqual(r.json.bearer_methods_supported, ["header"]);
      }
    });
  });
}
