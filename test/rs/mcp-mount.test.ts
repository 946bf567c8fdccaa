// RS HTTP: the hosted /mcp mount's bearer rules, 405s and the protected-resource metadata.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { chunkedUpload } from "../helpers/chunked-upload.js";
import { assertError, type Fixture, setupFixture } from "./harness.js";

const MIB = 1024 * 1024;

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
        mcp: async (_request, context) => {
          seen.push(context);
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

    it("cuts a chunked body off at 8 MiB while it streams: 413, the upload cancelled, never buffered (8.6)", async () => {
      const { token } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      const before = seen.length;
      // 64 MiB offered in 1 MiB chunks with no content-length, and an Accept of application/json alone.
      const upload = chunkedUpload({ chunks: 64, chunkBytes: MIB });
      const res = await fx.app.request("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: upload.stream,
        duplex: "half",
      } as RequestInit);
      const json = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 413);
      assert.equal(json.error.code, "payload_too_large");
      assert.match(json.error.message, /8 MiB/);
      assert.equal(upload.cancelled(), true, "the upload stream is cancelled at the limit");
      assert.ok(upload.pulled() <= 10 * MIB, `read ${upload.pulled()} bytes of a 64 MiB upload`);
      assert.equal(seen.length, before, "the MCP handler never sees an oversized body");
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
