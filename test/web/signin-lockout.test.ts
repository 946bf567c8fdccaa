// Nobody can lock the owner out (both backends): a valid one-time link signs in through any lock,
// only invalid attempts count, and behind a trusted proxy (--trust-proxy) each client is counted
// by the address the proxy reports instead of all as the proxy's 127.0.0.1.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApp } from "../../src/rs/app.js";
import { createSignInLink } from "../../src/web/session.js";
import { testBackends } from "../helpers/backends.js";
import { openFixture } from "../rs/harness.js";
import { csrfOf, PASSPHRASE, setTestPassphrase, WebClient } from "./web-client.js";

async function passphraseAttempt(web: WebClient, passphrase: string, headers: Record<string, string> = {}) {
  const form = await web.get("/signin", headers);
  return web.post(
    "/signin",
    [
      ["_csrf", csrfOf(form.text)],
      ["passphrase", passphrase],
    ],
    headers,
  );
}

async function linkAttempt(web: WebClient, token: string, headers: Record<string, string> = {}) {
  const page = await web.get(`/signin/link?token=${"A".repeat(43)}`, headers);
  return web.post(
    "/signin/link",
    [
      ["_csrf", csrfOf(page.text)],
      ["token", token],
    ],
    headers,
  );
}

for (const backend of testBackends()) {
  describe(`owner sign-in lockout (${backend.name})`, () => {
    it("a valid one-time link signs in through a lock; invalid links count; the lock holds for passphrases", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        const attacker = new WebClient(fx.app, undefined, "127.0.0.1");
        for (let i = 0; i < 5; i++)
          assert.equal((await passphraseAttempt(attacker, `wrong ${i}`)).status, 401);
        const owner = new WebClient(fx.app, undefined, "127.0.0.1");
        assert.equal((await passphraseAttempt(owner, PASSPHRASE)).status, 429, "the address is locked");
        // Invalid links from the same address are refused and counted ...
        assert.equal((await linkAttempt(attacker, "B".repeat(43))).status, 429);
        // ... but the owner's valid link (a 256-bit secret) signs in all the same.
        const signedIn = await linkAttempt(owner, await createSignInLink(fx.store));
        assert.equal(signedIn.status, 303);
        assert.equal(signedIn.location, "/console");
        assert.equal((await owner.get("/console")).status, 200);
      } finally {
        await cleanup();
      }
    });

    it("--trust-proxy: clients behind a same-host proxy are counted by X-Forwarded-For, not as 127.0.0.1", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        await setTestPassphrase(fx.store);
        const proxied = createApp({
          store: fx.store,
          publicUrl: "http://127.0.0.1:7662",
          trustProxy: ["loopback"],
        });
        const attacker = new WebClient(proxied, undefined, "127.0.0.1");
        const from = (ip: string) => ({ "x-forwarded-for": ip });
        for (let i = 0; i < 5; i++)
          assert.equal((await passphraseAttempt(attacker, `wrong ${i}`, from("203.0.113.5"))).status, 401);
        assert.equal((await passphraseAttempt(attacker, PASSPHRASE, from("203.0.113.5"))).status, 429);
        // A client's own X-Forwarded-For is appended to by the proxy: the right-most entry counts.
        assert.equal(
          (await passphraseAttempt(attacker, PASSPHRASE, from("198.51.100.7, 203.0.113.5"))).status,
          429,
        );
        const owner = new WebClient(proxied, undefined, "127.0.0.1");
        assert.equal((await passphraseAttempt(owner, PASSPHRASE, from("198.51.100.7"))).status, 303);

        // Without --trust-proxy the header is ignored: everyone behind the proxy is one address.
        const direct = new WebClient(fx.app, undefined, "127.0.0.1");
        for (let i = 0; i < 5; i++)
          assert.equal((await passphraseAttempt(direct, `wrong ${i}`, from(`192.0.2.${i}`))).status, 401);
        assert.equal((await passphraseAttempt(direct, PASSPHRASE, from("192.0.2.99"))).status, 429);
        // And a peer that is not a trusted proxy cannot pick its own address with the header.
        const outsider = new WebClient(proxied, undefined, "198.51.100.9");
        for (let i = 0; i < 5; i++)
          assert.equal((await passphraseAttempt(outsider, `wrong ${i}`, from(`192.0.2.${i}`))).status, 401);
        assert.equal((await passphraseAttempt(outsider, PASSPHRASE, from("192.0.2.99"))).status, 429);
      } finally {
        await cleanup();
      }
    });

    it("refuses a malformed --trust-proxy value in one line", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        assert.throws(() => createApp({ store: fx.store, trustProxy: ["not-an-address"] }), {
          code: "invalid_request",
          message: /--trust-proxy: .*give an address, a CIDR range, loopback/,
        });
      } finally {
        await cleanup();
      }
    });
  });
}
