// Hostile /authorize requests (both backends): PKCE missing or plain, redirect-URI mismatch and
// open-redirect attempts (never redirected), another resource, repeated parameters, and the
// consent answers (deny, single use).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { approveAuthorization, denyAuthorization, getPendingAuthorization } from "../../src/oauth/pending.js";
import { testBackends } from "../helpers/backends.js";
import {
  authorizeUrl,
  type OAuthWorld,
  ONLY_CHAT,
  openOAuthWorld,
  PUBLIC_URL,
  pendingIdFrom,
  REDIRECT,
  registerClient,
} from "./oauth-world.js";

for (const backend of testBackends()) {
  describe(`OAuth /authorize against hostile requests (${backend.name})`, () => {
    let world: OAuthWorld;
    let clientId: string;
    before(async () => {
      world = await openOAuthWorld(backend);
      clientId = await registerClient(world);
    });
    after(async () => world.cleanup());

    const get = (url: string) => world.fetch(url, { redirect: "manual" });

    /** A refused request that must not redirect anywhere: a plain 400 page. */
    async function errorPage(url: string): Promise<string> {
      const res = await get(url);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
      return res.text();
    }

    // RFC 9700 §4.11.2: errors before consent never redirect, even to the client's own registered
    // URI, so /authorize on the owner's host is no open redirector for whoever registers a client.
    it("requires PKCE: a missing challenge or the plain method is invalid_request, on a plain page", async () => {
      const cases: Record<string, string | null>[] = [
        { code_challenge: null },
        { code_challenge_method: "plain" },
        { code_challenge_method: null },
        { code_challenge: "short" },
      ];
      for (const overrides of cases) {
        assert.match(await errorPage(authorizeUrl(clientId, overrides)), /invalid_request: /);
      }
    });

    it("accepts only response_type=code and only this server's /mcp as resource, never redirecting", async () => {
      for (const response_type of ["token", "x", ""]) {
        assert.match(
          await errorPage(authorizeUrl(clientId, { response_type })),
          /unsupported_response_type: /,
        );
      }
      for (const resource of ["https://other.example/mcp", `${PUBLIC_URL}/v1`, `${PUBLIC_URL}/mcp/x`]) {
        assert.match(await errorPage(authorizeUrl(clientId, { resource })), /invalid_target: /, resource);
      }
      // A client registered with an https redirect to anywhere cannot bounce visitors there either.
      const bouncer = await registerClient(world, ["https://evil.example/landing"]);
      const page = await errorPage(
        authorizeUrl(bouncer, { redirect_uri: "https://evil.example/landing", response_type: "x" }),
      );
      assert.doesNotMatch(page, /evil\.example/);
    });

    it("never redirects to a redirect URI that is not the client's own", async () => {
      for (const redirect_uri of [
        "https://evil.example/callback",
        "http://127.0.0.1:33418/callback/../evil",
        "http://127.0.0.1:33418/callbackx",
        "http://127.0.0.1.evil.example:33418/callback",
        "http://127.0.0.1:33418@evil.example/callback",
        "http://evil.example@127.0.0.1:33418/callback",
        "http://localhost:33418/callback",
        `${REDIRECT}#frag`,
        `${REDIRECT}?extra=1`,
        "javascript:alert(1)",
      ]) {
        const page = await errorPage(authorizeUrl(clientId, { redirect_uri }));
        assert.match(page, /redirect_uri/, redirect_uri);
        assert.ok(!page.includes("<"), "the page is plain text");
      }
      await errorPage(authorizeUrl(clientId, { redirect_uri: null }));
    });

    it("refuses an OS-handler redirect scheme at /authorize even for a client stored before the rule", async () => {
      for (const uri of ["search-ms:query=x", "ms-msdt:/id PCWDiagnostic", "shell:startup"]) {
        const id = `pdpp_cl_${Buffer.from(uri).toString("base64url").padEnd(22, "A").slice(0, 22)}`;
        await world.fx.store.putOAuthClient({
          client_id: id,
          client_name: "Old",
          redirect_uris: [uri],
          source: "dcr",
          metadata: {},
          created_at: new Date().toISOString(),
        });
        const page = await errorPage(authorizeUrl(id, { redirect_uri: uri }));
        assert.match(page, /redirect_uri must use https, loopback http, or an app scheme/, uri);
      }
    });

    it("matches a loopback redirect URI on any port, and nothing else loosely", async () => {
      const res = await get(authorizeUrl(clientId, { redirect_uri: "http://127.0.0.1:5999/callback" }));
      assert.equal(res.status, 302);
      assert.match(res.headers.get("location") ?? "", /^\/consent\/pa_/);
    });

    it("refuses unknown clients and repeated parameters on a plain page", async () => {
      await errorPage(authorizeUrl("pdpp_cl_AAAAAAAAAAAAAAAAAAAAAA"));
      await errorPage(authorizeUrl("not-a-client"));
      await errorPage(authorizeUrl("", {}));
      const twice = `${authorizeUrl(clientId)}&redirect_uri=${encodeURIComponent("https://evil.example/cb")}`;
      await errorPage(twice);
      const twiceState = `${authorizeUrl(clientId)}&state=other`;
      await errorPage(twiceState);
    });

    it("denial returns access_denied with state and iss; a pending authorization is answered once", async () => {
      const denied = await pendingIdFrom(world, new URL(authorizeUrl(clientId)));
      const { redirectTo } = await denyAuthorization(world.deps, denied);
      const back = new URL(redirectTo);
      assert.equal(back.searchParams.get("error"), "access_denied");
      assert.equal(back.searchParams.get("state"), "s1");
      assert.equal(back.searchParams.get("iss"), PUBLIC_URL);
      assert.equal(await getPendingAuthorization(world.deps, denied), null);
      await assert.rejects(approveAuthorization(world.deps, denied, ONLY_CHAT), {
        code: "authorization_not_found",
      });

      const approved = await pendingIdFrom(world, new URL(authorizeUrl(clientId)));
      await approveAuthorization(world.deps, approved, ONLY_CHAT);
      await assert.rejects(approveAuthorization(world.deps, approved, ONLY_CHAT), {
        code: "authorization_not_found",
      });
      await assert.rejects(denyAuthorization(world.deps, approved), { code: "authorization_not_found" });
      assert.equal(await getPendingAuthorization(world.deps, "pa_../../etc"), null);
    });

    it("an expired pending authorization cannot be answered", async () => {
      const id = await pendingIdFrom(world, new URL(authorizeUrl(clientId)));
      const record = await world.fx.store.takeOAuthPending(id);
      await world.fx.store.putOAuthPending({
        ...(record as NonNullable<typeof record>),
        expires_at: "2001-01-01T00:00:00.000Z",
        created_at: "2001-01-01T00:00:00.000Z",
      });
      assert.equal(await getPendingAuthorization(world.deps, id), null);
      await assert.rejects(approveAuthorization(world.deps, id, ONLY_CHAT), {
        code: "authorization_not_found",
      });
      await assert.rejects(denyAuthorization(world.deps, id), { code: "authorization_not_found" });
    });

    it("a bad grant choice is a typed error and leaves the request open for a corrected form", async () => {
      const id = await pendingIdFrom(world, new URL(authorizeUrl(clientId)));
      await assert.rejects(
        approveAuthorization(world.deps, id, { streams: [{ stream: "nope", connector_key: "chat" }] }),
        { code: "stream_not_found" },
      );
      await assert.rejects(approveAuthorization(world.deps, id, { streams: [] }), {
        code: "invalid_request",
      });
      assert.notEqual(await getPendingAuthorization(world.deps, id), null);
      const { redirectTo } = await approveAuthorization(world.deps, id, ONLY_CHAT);
      assert.match(new URL(redirectTo).searchParams.get("code") ?? "", /^pdpp_ac_/);
    });

    it("rate-limits /authorize (each request stores a pending row): a 429 page, no redirect", async () => {
      let limited = 0;
      for (let i = 0; i < 70; i++) {
        const res = await get(authorizeUrl(clientId));
        if (res.status === 429) {
          limited++;
          assert.equal(res.headers.get("location"), null);
        }
        await res.arrayBuffer();
      }
      assert.ok(limited > 0);
    });
  });
}
