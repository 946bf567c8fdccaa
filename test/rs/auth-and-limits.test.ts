// RS HTTP: bearer auth on every request, introspection, host/origin checks, envelopes and limits.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs auth and limits (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("GET /v1/token introspects owner and client tokens", async () => {
      const owner = await fx.call("/v1/token");
      assert.equal(owner.status, 200);
      assert.deepEqual(owner.json, { kind: "owner", expires_at: null });
      assert.match(owner.headers.get("request-id") ?? "", /^req_[0-9a-f]{16}$/);
      const { token, grant_id } = await fx.grant(
        [{ stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["subject"] }],
        { expires_at: "2999-01-01T00:00:00Z" },
      );
      const client = await fx.call("/v1/token", { token });
      assert.deepEqual(client.json, {
        kind: "client",
        grant: {
          grant_id,
          client_name: "test-agent",
          purpose: "tests",
          streams: [{ stream: "messages", connector_key: "mail", connections: [fx.mailA] }],
        },
        expires_at: "2999-01-01T00:00:00.000Z",
      });
      assert.doesNotMatch(client.text, /pdpp_ct_/);
    });

    it("answers missing_token, invalid_token, token_expired and grant_revoked", async () => {
      assertError(await fx.call("/v1/schema", { token: null }), 401, "missing_token");
      assertError(await fx.call("/v1/schema", { token: "pdpp_ct_nope" }), 401, "invalid_token");
      const bad = await fx.call("/v1/schema", { token: null, headers: { authorization: "Basic abc" } });
      assertError(bad, 401, "invalid_token");
      const expired = await fx.grant(
        [{ stream: "messages", connector_key: "mail", connections: "all", fields: "all" }],
        {
          expires_at: "2001-01-01T00:00:00Z",
        },
      );
      const e = await fx.call("/v1/schema", { token: expired.token });
      assertError(e, 401, "token_expired");
      assert.ok(!e.text.includes(expired.token));
      const live = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      assert.equal((await fx.call("/v1/streams/messages/records", { token: live.token })).status, 200);
      const revoke = await fx.call(`/v1/owner/grants/${live.grant_id}/revoke`, { method: "POST" });
      assert.equal(revoke.status, 200);
      assert.match(revoke.json.revoked_at, /^\d{4}-/);
      // Revocation bites on the very next request.
      assertError(await fx.call("/v1/streams/messages/records", { token: live.token }), 403, "grant_revoked");
    });

    it("refuses client tokens on owner endpoints with owner_only", async () => {
      const { token } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      assertError(await fx.call("/v1/owner/grants", { token }), 403, "owner_only");
      assertError(
        await fx.call("/v1/owner/connections", { token, method: "POST", body: "{}" }),
        403,
        "owner_only",
      );
    });

    it("checks Host and Origin on every route (DNS rebinding)", async () => {
      const evilHost = await fx.app.request("http://evil.example/v1/token", {
        headers: { authorization: `Bearer ${fx.owner}` },
      });
      assert.equal(evilHost.status, 403);
      assert.equal(((await evilHost.json()) as { error: { code: string } }).error.code, "invalid_host");
      const evilMcp = await fx.app.request("http://attacker.test:7662/mcp", { method: "POST" });
      assert.equal(evilMcp.status, 403);
      const origin = await fx.call("/v1/token", { headers: { origin: "http://evil.example" } });
      assertError(origin, 403, "invalid_host");
      for (const host of [
        "http://localhost:9/v1/token",
        "http://127.0.0.1:7662/v1/token",
        "http://[::1]:1/v1/token",
      ]) {
        const ok = await fx.app.request(host, {
          headers: { authorization: `Bearer ${fx.owner}`, origin: "http://localhost:3000" },
        });
        assert.equal(ok.status, 200, host);
      }
    });

    it("checks the Host on owner routes, metadata, /mcp and unknown routes alike", async () => {
      for (const [path, method] of [
        ["/v1/owner/grants", "GET"],
        ["/v1/owner/connections", "POST"],
        ["/.well-known/oauth-protected-resource", "GET"],
        ["/mcp", "GET"],
        ["/no/such/route", "GET"],
      ]) {
        const res = await fx.app.request(`http://rebind.attacker.test${path}`, {
          method,
          headers: { authorization: `Bearer ${fx.owner}` },
        });
        const body = (await res.json()) as { error: { code: string; request_id: string } };
        assert.equal(res.status, 403, path);
        assert.equal(body.error.code, "invalid_host", path);
        assert.equal(res.headers.get("request-id"), body.error.request_id, path);
      }
      const origin = await fx.call("/v1/owner/grants", { headers: { origin: "null" } });
      assertError(origin, 403, "invalid_host");
    });

    it("puts a request-id header on every answer, success or failure", async () => {
      const replies = [
        await fx.call("/v1/schema"),
        await fx.call("/v1/streams/messages/records?limit=1"),
        await fx.call("/v1/owner/connections"),
        await fx.call("/.well-known/oauth-protected-resource", { token: null }),
        await fx.call("/v1/schema", { token: null }),
        await fx.call("/mcp", { method: "DELETE" }),
        await fx.call("/nowhere"),
      ];
      const ids = replies.map((r) => r.headers.get("request-id"));
      for (const id of ids) assert.match(id ?? "", /^req_[0-9a-f]{16}$/);
      assert.equal(new Set(ids).size, ids.length, "request ids are unique");
    });

    it("never echoes a token, valid or not, in an error", async () => {
      const fake = `pdpp_ct_${"Q".repeat(43)}`;
      const unknown = await fx.call("/v1/schema", { token: fake });
      assertError(unknown, 401, "invalid_token");
      assert.ok(!unknown.text.includes("QQQQ"));
      const huge = await fx.call("/v1/schema", { token: `pdpp_ct_${"Z".repeat(600)}` });
      assertError(huge, 401, "invalid_token");
      assert.ok(!huge.text.includes("ZZZZ"));
      const { token, grant_id } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: ["subject"] },
      ]);
      const denied = await fx.call("/v1/owner/grants", { token });
      assertError(denied, 403, "owner_only");
      assert.ok(!denied.text.includes(token));
      await fx.call(`/v1/owner/grants/${grant_id}/revoke`, { method: "POST" });
      const revoked = await fx.call("/v1/schema", { token });
      assertError(revoked, 403, "grant_revoked");
      assert.ok(!revoked.text.includes(token));
    });

    it("applies expiry on the very next request", async () => {
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const { token } = await fx.grant(
        [{ stream: "messages", connector_key: "mail", connections: "all", fields: "all" }],
        { expires_at: expiresAt },
      );
      assert.equal((await fx.call("/v1/token", { token })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
      assertError(await fx.call("/v1/streams/messages/records", { token }), 401, "token_expired");
    });

    it("accepts --allowed-host names on a public bind", async () => {
      const { createApp } = await import("../../src/rs/app.js");
      const app = createApp({
        store: fx.store,
        bindHost: "0.0.0.0",
        allowedHosts: ["pdpp.example.org"],
        publicUrl: "https://pdpp.example.org",
      });
      const ok = await app.request("https://pdpp.example.org/v1/token", {
        headers: { authorization: `Bearer ${fx.owner}` },
      });
      assert.equal(ok.status, 200);
      const bad = await app.request("https://other.example.org/v1/token", {
        headers: { authorization: `Bearer ${fx.owner}` },
      });
      assert.equal(bad.status, 403);
    });

    it("answers unknown routes with 404 route_not_found JSON", async () => {
      assertError(await fx.call("/v1/nothing-here"), 404, "route_not_found");
      assertError(await fx.call("/elsewhere", { token: null }), 404, "route_not_found");
    });

    it("enforces URL, repeated-parameter and q limits, naming each", async () => {
      const long = await fx.call(`/v1/search?q=${"a".repeat(17_000)}`);
      assertError(long, 414, "uri_too_long");
      assert.match(long.json.error.message, /16 KiB/);
      const repeated = await fx.call(
        `/v1/streams/messages/records?${Array(65).fill("fields=subject").join("&")}`,
      );
      assertError(repeated, 400, "limit_exceeded");
      assert.match(repeated.json.error.message, /64 times/);
      const q = await fx.call(`/v1/search?q=${"a".repeat(1001)}`);
      assertError(q, 400, "limit_exceeded");
      assert.equal(q.json.error.param, "q");
      const filters = Array.from({ length: 17 }, (_, i) => `filter[f${i}]=1`).join("&");
      const tooMany = await fx.call(`/v1/streams/messages/records?${filters}`);
      assertError(tooMany, 400, "limit_exceeded");
      assert.match(tooMany.json.error.message, /16 filter fields/);
    });

    it("rejects unknown and repeated single parameters", async () => {
      const unknown = await fx.call("/v1/streams/messages/records?filters=x");
      assertError(unknown, 400, "invalid_request");
      assert.equal(unknown.json.error.param, "filters");
      assertError(await fx.call("/v1/streams/messages/records?limit=1&limit=2"), 400, "invalid_request");
    });

    it("answers NUL and other hostile names with a typed 4xx and logs no such row", async () => {
      assertError(
        await fx.call(`/v1/streams/messages/records?connection_id=${fx.mailA}&filter[from]=a%00b`),
        400,
        "invalid_filter",
      );
      assertError(await fx.call("/v1/schema?stream=a%00b"), 400, "invalid_request");
      assertError(await fx.call("/v1/search?q=apple&streams=%00"), 400, "invalid_request");
      assertError(await fx.call("/v1/streams/a%00b/records"), 400, "invalid_request");
      const log = await fx.call("/v1/owner/access-log?limit=1000");
      assert.ok(!log.text.includes("\\u0000"));
    });

    it("turns an unexpected failure into a generic 500 internal_error", async () => {
      const { fx: broken, cleanup: close } = await openFixture(backend);
      await close(); // the store is closed under the app: every read now fails inside it
      const original = console.error;
      console.error = () => {};
      try {
        const r = await broken.call("/v1/token");
        assertError(r, 500, "internal_error");
        assert.equal(r.json.error.type, "api_error");
        assert.equal(r.json.error.message, "internal error; the server log has the details.");
        assert.doesNotMatch(r.text, /at .*\.ts|stack/);
      } finally {
        console.error = original;
      }
    });
  });
}
