// The passphrase hash (scrypt, PHC string, strong defaults) and the sign-in guard's global lock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_SCRYPT,
  hashPassphrase,
  passphraseProblem,
  verifyPassphrase,
} from "../../src/web/passphrase.js";
import { SignInGuard } from "../../src/web/signin-guard.js";
import { testBackends } from "../helpers/backends.js";

describe("owner passphrase hash", () => {
  it("uses scrypt N=2^17, r=8, p=1 with a 16-byte salt by default, and verifies", async () => {
    const hash = await hashPassphrase("correct horse battery staple");
    assert.match(hash, /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(DEFAULT_SCRYPT, { logN: 17, r: 8, p: 1 });
    assert.equal(await verifyPassphrase("correct horse battery staple", hash), true);
    assert.equal(await verifyPassphrase("correct horse battery stapler", hash), false);
  });

  it("salts every hash; refuses short passphrases; a missing or garbled hash never verifies", async () => {
    const cheap = { logN: 10, r: 8, p: 1 };
    const a = await hashPassphrase("same passphrase here", cheap);
    const b = await hashPassphrase("same passphrase here", cheap);
    assert.notEqual(a, b);
    assert.equal(await verifyPassphrase("same passphrase here", b), true);
    assert.equal(passphraseProblem("short"), "the passphrase must have at least 12 characters.");
    assert.equal(passphraseProblem("twelve chars"), null);
    assert.equal(await verifyPassphrase("same passphrase here", null), false);
    assert.equal(await verifyPassphrase("same passphrase here", "$scrypt$garbage"), false);
  });
});

describe("SignInGuard", () => {
  it("locks every client after 20 failures server-wide, but a valid one-time link passes any lock", async () => {
    const opened = await testBackends()[0].open();
    const store = opened.store;
    try {
      let now = 0;
      const guard = new SignInGuard(() => now);
      let checks = 0;
      const wrong = async () => {
        checks++;
        return false;
      };
      for (let i = 0; i < 20; i++) {
        assert.equal((await guard.attemptPassphrase(store, `10.0.0.${i}`, wrong)).outcome, "failed");
      }
      const fresh = await guard.attemptPassphrase(store, "10.0.1.1", async () => true);
      assert.deepEqual(fresh, { outcome: "throttled", retryAfterMs: 30_000 });
      assert.equal(checks, 20, "a throttled passphrase attempt is never checked");
      assert.equal((await guard.attemptLink(store, "10.0.1.1", async () => true)).outcome, "ok");
      // Invalid links count for their address only, and never lock the server.
      for (let i = 0; i < 4; i++)
        assert.equal((await guard.attemptLink(store, "10.0.2.2", wrong)).outcome, "failed");
      assert.deepEqual(await guard.attemptLink(store, "10.0.2.2", wrong), {
        outcome: "throttled",
        retryAfterMs: 30_000,
      });
      assert.equal(
        (await guard.attemptLink(store, "10.0.2.2", async () => true)).outcome,
        "ok",
        "still a valid link passes",
      );
      now += 30_000;
      assert.equal((await guard.attemptPassphrase(store, "10.0.1.1", async () => true)).outcome, "ok");
    } finally {
      await opened.cleanup();
    }
  });
});
