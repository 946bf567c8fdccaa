// Owner sign-in over HTTP (in-process): passphrase and one-time links, sessions and cookie flags,
// CSRF on every form, bearer tokens refused, the throttle and the no-oracle property.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hashToken } from "../../src/core/ids.js";
import { createApp } from "../../src/rs/app.js";
import { createSignInLink } from "../../src/web/session.js";
import { testBackends } from "../helpers/backends.js";
import { openFixture } from "../rs/harness.js";
import { csrfOf, normalised, PASSPHRASE, setTestPassphrase, WebClient } from "./web-client.js";

/** The token with its first character changed (never a no-op). */
function flipFirst(token: string): string {
  return `${token[0] === "A" ? "B" : "A"}${token.slice(1)}`;
}

function assertSecurityHeaders(headers: Headers): void {
  const csp = headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self'/);
  assert.doesNotMatch(csp, /script-src/);
  assert.equal(headers.get("x-frame-options"), "DENY");
  assert.equal(headers.get("referrer-policy"), "same-origin");
  assert.equal(headers.get("cache-control"), "no-store");
}

for (const backend of testBackends()) {
  describe(`owner sign-in (${backend.name})`, () => {
    it("signs in with the passphrase, sets a session cookie, and signs out", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        const anonymous = await web.get("/console");
        assert.equal(anonymous.status, 303);
        assert.equal(anonymous.location, "/signin?next=%2Fconsole");
        assertSecurityHeaders(anonymous.headers);

        const form = await web.get("/signin?next=/console/connections");
        assert.equal(form.status, 200);
        assert.match(form.text, /^<!DOCTYPE html>/);
        assertSecurityHeaders(form.headers);
        const nonce = /nonce="([^"]+)"/.exec(form.text)?.[1];
        assert.ok(nonce && form.headers.get("content-security-policy")?.includes(`'nonce-${nonce}'`));

        const wrong = await web.post("/signin", [
          ["_csrf", csrfOf(form.text)],
          ["passphrase", "not the passphrase"],
          ["next", "/console/connections"],
        ]);
        assert.equal(wrong.status, 401);
        assert.match(wrong.text, /Sign-in failed/);
        assert.equal(web.cookies.has("pdpp_session"), false);

        const right = await web.post("/signin", [
          ["_csrf", csrfOf(wrong.text)],
          ["passphrase", PASSPHRASE],
          ["next", "/console/connections"],
        ]);
        assert.equal(right.status, 303);
        assert.equal(right.location, "/console/connections");
        const cookie = web.setCookies.find((c) => c.startsWith("pdpp_session="));
        assert.ok(cookie);
        assert.match(cookie, /; HttpOnly/);
        assert.match(cookie, /; SameSite=Lax/);
        assert.match(cookie, /; Path=\//);
        assert.doesNotMatch(cookie, /Secure/);
        // The session id is stored only as a hash.
        const secret = web.cookies.get("pdpp_session") as string;
        assert.equal(await fx.store.getOwnerSecret(secret, "session"), null);
        assert.ok(await fx.store.getOwnerSecret(hashToken(secret), "session"));

        const page = await web.get("/console/connections");
        assert.equal(page.status, 200);
        assert.match(page.text, /Work mail/);
        assert.match(page.text, /mail:messages<\/td><td>12</);
        assertSecurityHeaders(page.headers);

        const out = await web.post("/signout", [["_csrf", csrfOf(page.text)]]);
        assert.equal(out.status, 303);
        assert.equal((await web.get("/console")).status, 303);
        // The old cookie value is dead even when replayed.
        const replay = new WebClient(fx.app);
        replay.cookies.set("pdpp_session", secret);
        assert.equal((await replay.get("/console")).status, 303);
      } finally {
        await cleanup();
      }
    });

    it("never redirects off-site after sign-in", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        for (const next of [
          "//evil.example/x",
          "https://evil.example/",
          "/\\evil.example",
          "/console/../../x",
        ]) {
          const web = new WebClient(fx.app);
          const form = await web.get(`/signin?next=${encodeURIComponent(next)}`);
          const res = await web.post("/signin", [
            ["_csrf", csrfOf(form.text)],
            ["passphrase", PASSPHRASE],
            ["next", next],
          ]);
          assert.equal(res.status, 303);
          assert.equal(res.location, "/console", next);
        }
      } finally {
        await cleanup();
      }
    });

    it("refuses sign-in and sign-out posts without the right CSRF token (403)", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        const form = await web.get("/signin");
        for (const csrf of [null, "", "x".repeat(43), flipFirst(csrfOf(form.text))]) {
          const fields: [string, string][] = [["passphrase", PASSPHRASE]];
          if (csrf !== null) fields.push(["_csrf", csrf]);
          const res = await web.post("/signin", fields);
          assert.equal(res.status, 403, `csrf ${csrf}`);
          assertSecurityHeaders(res.headers);
        }
        // A token minted for another browser's pre-session cookie does not work here either.
        const other = new WebClient(fx.app);
        const otherForm = await other.get("/signin");
        const res = await web.post("/signin", [
          ["_csrf", csrfOf(otherForm.text)],
          ["passphrase", PASSPHRASE],
        ]);
        assert.equal(res.status, 403);
        // A cross-site post is refused whatever it carries.
        const cross = await web.post(
          "/signin",
          [
            ["_csrf", csrfOf(form.text)],
            ["passphrase", PASSPHRASE],
          ],
          { "sec-fetch-site": "cross-site" },
        );
        assert.equal(cross.status, 403);
        assert.equal(web.cookies.has("pdpp_session"), false);

        const csrf = await web.signIn();
        assert.equal((await web.post("/signout", [["_csrf", "wrong"]])).status, 403);
        assert.equal((await web.get("/console")).status, 200);
        assert.equal((await web.post("/signout", [["_csrf", csrf]])).status, 303);
      } finally {
        await cleanup();
      }
    });

    it("refuses bearer tokens on every owner page, even valid owner and client tokens", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        const { token, grant_id } = await fx.grant([
          { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
        ]);
        for (const bearer of [fx.owner, token, "pdpp_at_made_up"]) {
          for (const path of ["/console", "/console/access-log", "/console/connections", "/consent/abc"]) {
            const web = new WebClient(fx.app);
            const res = await web.get(path, { authorization: `Bearer ${bearer}` });
            assert.equal(res.status, 401, path);
            assert.doesNotMatch(res.text, new RegExp(grant_id));
            assert.doesNotMatch(res.text, /Work mail/);
          }
          const web = new WebClient(fx.app);
          const revoke = await web.post(`/console/grants/${grant_id}/revoke`, [["_csrf", "x"]], {
            authorization: `Bearer ${bearer}`,
          });
          assert.equal(revoke.status, 401);
        }
        assert.equal((await fx.store.getGrant(grant_id))?.revoked_at, null);
        // Even a signed-in browser is refused while it sends a bearer token along.
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        assert.equal((await web.get("/console", { authorization: `Bearer ${fx.owner}` })).status, 401);
      } finally {
        await cleanup();
      }
    });

    it("signs in once with a sign-in link; replayed, expired and forged links fail", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        const token = await createSignInLink(fx.store);
        assert.equal(await fx.store.getOwnerSecret(token, "signin_link"), null, "stored only as a hash");
        const web = new WebClient(fx.app);
        const page = await web.get(`/signin/link?token=${token}`);
        assert.equal(page.status, 200);
        const ok = await web.post("/signin/link", [
          ["_csrf", csrfOf(page.text)],
          ["token", token],
        ]);
        assert.equal(ok.status, 303);
        assert.equal(ok.location, "/console");
        assert.equal((await web.get("/console")).status, 200);

        const again = new WebClient(fx.app);
        const page2 = await again.get(`/signin/link?token=${token}`);
        const replay = await again.post("/signin/link", [
          ["_csrf", csrfOf(page2.text)],
          ["token", token],
        ]);
        assert.equal(replay.status, 401);
        assert.match(replay.text, /not valid/);
        assert.equal(again.cookies.has("pdpp_session"), false);

        const expired = await createSignInLink(fx.store, new Date(Date.now() - 11 * 60_000));
        const late = new WebClient(fx.app);
        const page3 = await late.get(`/signin/link?token=${expired}`);
        const stale = await late.post("/signin/link", [
          ["_csrf", csrfOf(page3.text)],
          ["token", expired],
        ]);
        assert.equal(stale.status, 401);
        assert.equal((await late.get("/console")).status, 303);

        assert.equal((await late.get("/signin/link?token=..%2F..%2Fetc")).status, 400);
        // A link post needs the pre-session CSRF token too.
        const fresh = await createSignInLink(fx.store);
        const nocsrf = await late.post("/signin/link", [["token", fresh]]);
        assert.equal(nocsrf.status, 403);
      } finally {
        await cleanup();
      }
    });

    it("marks cookies Secure with the __Host- prefix when the public URL is https", async () => {
      const { fx, cleanup } = await openFixture(backend, { publicUrl: "https://pdpp.example.com" });
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app, "https://pdpp.example.com");
        await web.signIn();
        const session = web.setCookies.find((c) => c.startsWith("__Host-pdpp_session="));
        assert.ok(session, web.setCookies.join("\n"));
        assert.match(session, /; Secure/);
        assert.match(session, /; HttpOnly/);
        assert.match(session, /; SameSite=Lax/);
        assert.match(session, /; Path=\//);
        assert.doesNotMatch(session, /Domain=/);
        const pre = web.setCookies.find((c) => c.startsWith("__Host-pdpp_signin="));
        assert.ok(pre);
        assert.match(pre, /; Secure/);
        // Another host name is refused before any page renders (DNS-rebinding rules apply here too).
        const evil = new WebClient(fx.app, "https://evil.example");
        assert.equal((await evil.get("/signin")).status, 403);
      } finally {
        await cleanup();
      }
    });

    it("a new passphrase ends every session", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        assert.equal((await web.get("/console")).status, 200);
        await setTestPassphrase(fx.store, "another long passphrase");
        assert.equal((await web.get("/console")).status, 303);
      } finally {
        await cleanup();
      }
    });
  });
}

describe("owner sign-in throttle", () => {
  it("locks a client after 5 failures, then even the right passphrase gets 429 until the lock ends", async () => {
    const backend = testBackends()[0];
    let now = Date.parse("2026-01-01T00:00:00Z");
    const { fx, cleanup } = await openFixture(backend, { ownerWeb: { now: () => now } });
    try {
      await setTestPassphrase(fx.store);
      const web = new WebClient(fx.app);
      const attempt = async (passphrase: string) => {
        const form = await web.get("/signin");
        return web.post("/signin", [
          ["_csrf", csrfOf(form.text)],
          ["passphrase", passphrase],
        ]);
      };
      for (let i = 0; i < 5; i++) assert.equal((await attempt(`wrong ${i}`)).status, 401);
      const locked = await attempt(PASSPHRASE);
      assert.equal(locked.status, 429);
      assert.equal(locked.headers.get("retry-after"), "30");
      assert.equal(web.cookies.has("pdpp_session"), false);
      now += 29_000;
      assert.equal((await attempt(PASSPHRASE)).status, 429);
      now += 2_000;
      assert.equal((await attempt(PASSPHRASE)).status, 303);
      assert.equal((await web.get("/console")).status, 200);
    } finally {
      await cleanup();
    }
  });

  it("answers a wrong passphrase exactly as it answers when no passphrase is set (no oracle)", async () => {
    const backend = testBackends()[0];
    const unset = await backend.open();
    const set = await backend.open();
    try {
      await setTestPassphrase(set.store);
      const replies = [];
      for (const store of [unset.store, set.store]) {
        const app = createApp({ store, publicUrl: "http://127.0.0.1:7662" });
        const web = new WebClient(app);
        const form = await web.get("/signin");
        const res = await web.post("/signin", [
          ["_csrf", csrfOf(form.text)],
          ["passphrase", "a wrong passphrase"],
          ["next", "/console"],
        ]);
        replies.push({
          status: res.status,
          text: normalised(res.text),
          cookies: [...web.cookies.keys()].sort(),
        });
      }
      assert.equal(replies[0].status, 401);
      assert.deepEqual(replies[0], replies[1]);
    } finally {
      await unset.cleanup();
      await set.cleanup();
    }
  });
});
