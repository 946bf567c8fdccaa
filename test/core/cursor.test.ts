// Unit tests for sealed cursors: round trip, unreadable, deterministic, tampering, foreign secrets, binding.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fingerprint, openBoundCursor, signCursor, verifyCursor } from "../../src/core/cursor.js";
import type { PdppError } from "../../src/core/errors.js";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as PdppError).code;
  }
  return "no error";
};

describe("core/cursor", () => {
  it("round-trips a payload and is URL-safe", () => {
    const c = signCursor("s1", { k: "list", p: { s: "2024-01-01", c: "cin_000000000001", r: "a:b" } });
    assert.match(c, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(verifyCursor("s1", c), {
      k: "list",
      p: { s: "2024-01-01", c: "cin_000000000001", r: "a:b" },
    });
  });

  it("rejects a foreign secret, tampering, truncation and junk as invalid_cursor", () => {
    const c = signCursor("s1", { k: "x", o: 10 });
    assert.equal(
      code(() => verifyCursor("s2", c)),
      "invalid_cursor",
    );
    const [body, sig] = c.split(".");
    const forged = Buffer.from(JSON.stringify({ k: "x", o: 99 })).toString("base64url");
    assert.equal(
      code(() => verifyCursor("s1", `${forged}.${sig}`)),
      "invalid_cursor",
    );
    assert.equal(
      code(() => verifyCursor("s1", `${body}.${sig.slice(0, -2)}`)),
      "invalid_cursor",
    );
    assert.equal(
      code(() => verifyCursor("s1", "")),
      "invalid_cursor",
    );
    assert.equal(
      code(() => verifyCursor("s1", "a.b.c")),
      "invalid_cursor",
    );
    assert.equal(
      code(() => verifyCursor("s1", "%%%.***")),
      "invalid_cursor",
    );
    assert.equal(
      code(() => verifyCursor("s1", "x".repeat(5000))),
      "invalid_cursor",
    );
  });

  it("binds kind and fingerprint", () => {
    const f = fingerprint({ s: "messages", g: "grt_1" });
    assert.equal(f, fingerprint({ s: "messages", g: "grt_1" }));
    assert.notEqual(f, fingerprint({ s: "messages", g: "grt_2" }));
    const c = signCursor("k", { k: "list", f });
    assert.equal(openBoundCursor("k", c, { kind: "list", fingerprint: f }).k, "list");
    assert.equal(
      code(() => openBoundCursor("k", c, { kind: "srch", fingerprint: f })),
      "invalid_cursor",
    );
    assert.equal(
      code(() => openBoundCursor("k", c, { kind: "list", fingerprint: "other" })),
      "invalid_cursor",
    );
    const err = (() => {
      try {
        openBoundCursor("k", c, { kind: "list", fingerprint: "other", param: "changes_since" });
      } catch (e) {
        return e as PdppError;
      }
    })();
    assert.equal(err?.param, "changes_since");
    assert.equal(err?.status, 400);
  });

  it("carries nothing readable and seals the same payload to the same bytes", () => {
    const payload = {
      k: "chg",
      a: ["cin_000000000001", "secret-record-id", "2024-01-01T00:00:00.000Z", false],
    };
    const c = signCursor("s1", payload);
    assert.equal(c, signCursor("s1", payload), "deterministic: answers stay byte-comparable");
    assert.notEqual(c, signCursor("s2", payload));
    assert.notEqual(c, signCursor("s1", { ...payload, k: "chg2" }));
    for (const part of c.split(".")) {
      for (const shift of [0, 1, 2, 3]) {
        const decoded = Buffer.from(part.slice(shift), "base64url").toString("latin1");
        assert.ok(!/secret|cin_|2024|chg/.test(decoded), `readable: ${decoded}`);
      }
    }
    assert.deepEqual(verifyCursor("s1", c), payload);
  });
});
