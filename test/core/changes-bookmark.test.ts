// Unit tests for changes_since bookmark payloads (core/changes-bookmark.ts): a sealed bookmark has
// one length whatever its version, positions round-trip, old-format payloads map to a resume before
// their anchor's emitted_at, and anything else is invalid_cursor.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bookmarkPayload, bookmarkPosition } from "../../src/core/changes-bookmark.js";
import { fingerprint, signCursor } from "../../src/core/cursor.js";
import type { PdppError } from "../../src/core/errors.js";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as PdppError).code;
  }
  return "no error";
};

describe("core/changes-bookmark", () => {
  it("seals every version to the same length and reads it back", () => {
    const f = fingerprint({ s: "messages", c: null, g: "grt_0123456789abcdef" });
    const versions = [0, 1, 15, 16, 99, 100, 65_535, 1_000_000, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    const lengths = new Set(versions.map((v) => signCursor("secret", bookmarkPayload(f, v)).length));
    assert.equal(lengths.size, 1);
    for (const v of versions)
      assert.deepEqual(bookmarkPosition(bookmarkPayload(f, v)), { kind: "version", version: v });
    assert.throws(() => bookmarkPayload(f, -1));
    assert.throws(() => bookmarkPayload(f, 1.5));
  });

  it("reads old-format payloads: an anchor resumes before its emitted_at, null from the beginning", () => {
    assert.deepEqual(
      bookmarkPosition({ k: "chg", f: "x", a: ["cin_000000000001", "r1", "2026-01-01T00:00:00.000Z", true] }),
      {
        kind: "before",
        emittedAt: "2026-01-01T00:00:00.000Z",
      },
    );
    assert.deepEqual(bookmarkPosition({ k: "chg", f: "x", a: null }), { kind: "version", version: 0 });
  });

  it("refuses what no server issued as invalid_cursor", () => {
    for (const payload of [
      { k: "chg", f: "x" },
      { k: "chg", f: "x", p: "12" },
      { k: "chg", f: "x", p: "0000000000000010 " },
      { k: "chg", f: "x", p: "ffffffffffffffff" },
      { k: "chg", f: "x", p: 16 },
      { k: "chg", f: "x", a: ["c", "r", "t"] },
      { k: "chg", f: "x", a: ["c", "r", 1, false] },
      { k: "chg", f: "x", a: "x" },
    ])
      assert.equal(
        code(() => bookmarkPosition(payload)),
        "invalid_cursor",
        JSON.stringify(payload),
      );
  });
});
