// The OAuth store methods on both backends: single use holds under concurrency (exactly one of
// many simultaneous redemptions wins), pending authorizations are answered once, and expired
// pending rows are swept as new ones arrive. Plus the pure redirect-URI rules.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../../src/core/ids.js";
import { matchRedirectUri, redirectUriProblem, withQuery } from "../../src/oauth/redirect-uri.js";
import type { OAuthPendingRecord, OAuthTokenRecord, Store } from "../../src/store/store.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";

const token = (secret: string, extra: Partial<OAuthTokenRecord> = {}): OAuthTokenRecord => ({
  token_hash: hashToken(secret),
  kind: "code",
  grant_id: "grt_0123456789abcdef",
  client_id: "pdpp_cl_AAAAAAAAAAAAAAAAAAAAAA",
  resource: "http://127.0.0.1:7662/mcp",
  redirect_uri: "http://127.0.0.1:1/cb",
  code_challenge: "c".repeat(43),
  scope: null,
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: "2999-01-01T00:00:00.000Z",
  used_at: null,
  ...extra,
});

const pending = (id: string, extra: Partial<OAuthPendingRecord> = {}): OAuthPendingRecord => ({
  pending_id: id,
  client_id: "pdpp_cl_AAAAAAAAAAAAAAAAAAAAAA",
  client_name: "c",
  redirect_uri: "http://127.0.0.1:1/cb",
  state: null,
  scope: null,
  resource: "http://127.0.0.1:7662/mcp",
  code_challenge: "c".repeat(43),
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: "2026-01-01T00:10:00.000Z",
  ...extra,
});

for (const backend of testBackends()) {
  describe(`OAuth store methods (${backend.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    before(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    after(async () => opened.cleanup());

    it("stores tokens by hash and lets exactly one concurrent redemption win", async () => {
      await store.putOAuthToken(token("secret-a"));
      const got = await store.getOAuthToken(hashToken("secret-a"));
      assert.deepEqual(got, token("secret-a"));
      assert.equal(await store.getOAuthToken("secret-a"), null, "looked up by hash only");
      const wins = await Promise.all(
        Array.from({ length: 12 }, () =>
          store.markOAuthTokenUsed(hashToken("secret-a"), "2026-01-01T00:01:00.000Z"),
        ),
      );
      assert.equal(wins.filter(Boolean).length, 1);
      assert.equal((await store.getOAuthToken(hashToken("secret-a")))?.used_at, "2026-01-01T00:01:00.000Z");
      assert.equal(await store.markOAuthTokenUsed(hashToken("nope"), "2026-01-01T00:01:00.000Z"), false);
    });

    it("answers a pending authorization once and sweeps expired ones", async () => {
      await store.putOAuthPending(pending("pa_one"));
      const takes = await Promise.all([store.takeOAuthPending("pa_one"), store.takeOAuthPending("pa_one")]);
      assert.equal(takes.filter((t) => t !== null).length, 1);
      assert.deepEqual(
        takes.find((t) => t !== null),
        pending("pa_one"),
      );
      await store.putOAuthPending(pending("pa_old"));
      await store.putOAuthPending(
        pending("pa_new", { created_at: "2026-01-02T00:00:00.000Z", expires_at: "2026-01-02T00:10:00.000Z" }),
      );
      assert.equal(await store.getOAuthPending("pa_old"), null);
      assert.notEqual(await store.getOAuthPending("pa_new"), null);
    });

    it("keeps registered clients", async () => {
      const client = {
        client_id: "pdpp_cl_BBBBBBBBBBBBBBBBBBBBBB",
        client_name: "n",
        redirect_uris: ["https://a.example/cb"],
        source: "dcr" as const,
        metadata: { client_id: "pdpp_cl_BBBBBBBBBBBBBBBBBBBBBB" },
        created_at: "2026-01-01T00:00:00.000Z",
      };
      await store.putOAuthClient(client);
      assert.deepEqual(await store.getOAuthClient(client.client_id), client);
      assert.equal(await store.getOAuthClient("pdpp_cl_none"), null);
    });
  });
}

describe("redirect URI rules", () => {
  it("registers https, loopback http and app schemes; refuses the rest", () => {
    for (const ok of [
      "https://a.example/cb",
      "http://127.0.0.1/cb",
      "http://[::1]:8/cb",
      "http://localhost:3/x",
      "com.example.app:/cb",
      "cursor://anysphere.cursor-mcp/oauth/callback",
    ])
      assert.equal(redirectUriProblem(ok), null, ok);
    for (const bad of [
      "http://a.example/cb",
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///x",
      "https://a.example/cb#f",
      "https://u:p@a.example/",
      "relative/cb",
      "vbscript:x",
      // RFC 8252 §7.1: private-use schemes only in reverse-domain form; OS handlers are refused.
      "search-ms:query=x&crumb=location:\\\\evil.example\\share",
      "ms-msdt:/id PCWDiagnostic",
      "shell:startup",
      "myapp:/cb",
      "cursor://anysphere.cursor-deeplink/mcp/install?name=x",
      "cursor://anysphere.cursor-mcp/oauth/callback/../x",
      "com.example.:/cb",
    ])
      assert.notEqual(redirectUriProblem(bad), null, bad);
  });

  it("matches exactly, loopback on any port only", () => {
    assert.equal(
      matchRedirectUri("http://127.0.0.1:9/cb", ["http://127.0.0.1:1/cb"]),
      "http://127.0.0.1:9/cb",
    );
    assert.equal(matchRedirectUri("http://127.0.0.1:9/cb", ["http://localhost:1/cb"]), null);
    assert.equal(matchRedirectUri("http://127.0.0.1:9/cb?x=1", ["http://127.0.0.1:1/cb"]), null);
    assert.equal(matchRedirectUri("https://a.example:444/cb", ["https://a.example/cb"]), null);
    assert.equal(matchRedirectUri("https://a.example/cb/", ["https://a.example/cb"]), null);
    assert.equal(matchRedirectUri("https://A.example/cb", ["https://a.example/cb"]), null);
  });

  it("adds response parameters without losing the client's own query", () => {
    assert.equal(
      withQuery("https://a.example/cb?k=v", { code: "c", state: null }),
      "https://a.example/cb?k=v&code=c",
    );
  });
});
