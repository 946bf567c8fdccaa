// Change stamps (core/stamps.ts): minimal changed paths, and the exactness property a grant relies
// on — the projected value at a path P differs exactly when some stamp lies at or under P.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getPath } from "../../src/core/projection.js";
import { addStamps, diffPaths, stampVisible, visibleStamp } from "../../src/core/stamps.js";

describe("change stamps", () => {
  it("stamps the minimal changed paths (objects recurse; arrays and scalars are leaves)", () => {
    assert.deepEqual(diffPaths({ a: 1, s: { e: "x", n: "y" } }, { a: 1, s: { e: "x", n: "z" } }), ["s.n"]);
    assert.deepEqual(diffPaths({ a: [1, 2] }, { a: [1, 3] }), ["a"]);
    assert.deepEqual(diffPaths({ a: [{ x: 1 }] }, { a: [{ x: 1 }] }), []);
    assert.deepEqual(diffPaths({ a: null }, {}), ["a"]);
    assert.deepEqual(diffPaths({ a: { b: 1 } }, { a: 5 }), ["a", "a.b"]);
    assert.deepEqual(diffPaths({}, { a: { b: { c: 1 } } }), ["a", "a.b", "a.b.c"]);
    assert.deepEqual(diffPaths({ a: {} }, {}), ["a"]);
    assert.deepEqual(diffPaths({ k: { y: 2, x: 1 } }, { k: { x: 1, y: 2 } }), []);
  });

  it("a change is visible through P exactly when the value at P differs (random payloads)", () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const value = (depth: number): unknown => {
      const k = rnd(depth > 2 ? 4 : 6);
      if (k === 0) return null;
      if (k === 1) return rnd(3);
      if (k === 2) return [rnd(2)];
      if (k === 3) return "s";
      const out: Record<string, unknown> = {};
      for (const key of ["a", "b"]) if (rnd(3) > 0) out[key] = value(depth + 1);
      return out;
    };
    const paths = ["a", "b", "a.a", "a.b", "b.a", "a.a.a", "a.b.b", "b.b.a"];
    for (let i = 0; i < 3000; i++) {
      const x = value(1) as Record<string, unknown>;
      const y = value(1) as Record<string, unknown>;
      const before = typeof x === "object" && x && !Array.isArray(x) ? x : { a: x };
      const after = typeof y === "object" && y && !Array.isArray(y) ? y : { a: y };
      const stamps = diffPaths(before, after);
      for (const p of paths) {
        const differs = JSON.stringify(getPath(before, p)) !== JSON.stringify(getPath(after, p));
        assert.equal(
          stamps.some((k) => stampVisible(k, [p])),
          differs,
          `${p}: ${JSON.stringify(before)} → ${JSON.stringify(after)} stamps ${stamps}`,
        );
      }
    }
  });

  it("a scope sees the newest visible stamp, else the base", () => {
    let stamps = addStamps(null, ["note"], 5, "t5");
    stamps = addStamps(stamps, ["subject", "sender.name"], 7, "t7");
    stamps = addStamps(stamps, ["note"], 9, "t9");
    const row = { version: 9, emittedAt: "t9", baseVersion: 2, baseEmittedAt: "t2", stamps };
    assert.deepEqual(visibleStamp(row, null), { version: 9, emittedAt: "t9" });
    assert.deepEqual(visibleStamp(row, ["subject"]), { version: 7, emittedAt: "t7" });
    assert.deepEqual(visibleStamp(row, ["sender"]), { version: 7, emittedAt: "t7" });
    assert.deepEqual(visibleStamp(row, ["sender.email", "from"]), { version: 2, emittedAt: "t2" });
    assert.deepEqual(visibleStamp(row, ["notes"]), { version: 2, emittedAt: "t2" });
  });
});
