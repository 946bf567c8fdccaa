// clipText: titles and previews cut between characters (grapheme clusters), never inside one,
// wherever an emoji, a flag, a ZWJ family or a combining accent falls relative to the cut.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clipText, oneLine } from "../../src/core/clip-text.js";
import { codePointLength } from "../../src/core/text-chunks.js";

/** No unpaired surrogate (String.prototype.isWellFormed; not in this TypeScript lib yet). */
const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

const CLUSTERS = ["🛒", "🇵🇹", "👩‍👩‍👧", "é", "e\u0301", "日", "👍🏽", "a"];

test("clipText never splits a character, at every cut point of every kind of cluster", () => {
  for (const cluster of CLUSTERS) {
    for (let before = 0; before < 12; before++) {
      const text = `${"x".repeat(before)}${cluster}${"y".repeat(6)}`;
      for (let max = 1; max <= codePointLength(text) + 1; max++) {
        const clipped = clipText(text, max);
        assert.ok(wellFormed(clipped), `${JSON.stringify(clipped)} from ${JSON.stringify(text)} at ${max}`);
        assert.ok(codePointLength(clipped) <= max, `${clipped} longer than ${max}`);
        if (codePointLength(text) <= max) assert.equal(clipped, text);
        else {
          assert.ok(clipped.endsWith("…"));
          const kept = clipped.slice(0, -1);
          assert.ok(text.startsWith(kept));
          // What is kept ends on a cluster boundary: the cluster is whole or absent.
          const at = text.indexOf(cluster);
          assert.ok(
            kept.length <= at || kept.length >= at + cluster.length,
            `${JSON.stringify(kept)} cuts ${cluster}`,
          );
        }
      }
    }
  }
});

test("clipText keeps what fits and oneLine flattens whitespace", () => {
  assert.equal(clipText("short", 200), "short");
  assert.equal(clipText("abcdef", 4), "abc…");
  assert.equal(clipText(`${"a".repeat(198)}🛒🛒`, 200), `${"a".repeat(198)}🛒🛒`);
  assert.equal(clipText(`${"a".repeat(199)}🛒b`, 200), `${"a".repeat(199)}…`);
  assert.equal(clipText(`${"a".repeat(198)}🛒bc`, 200), `${"a".repeat(198)}🛒…`);
  assert.equal(oneLine("  Fix\n\tthe   cart \r\n"), "Fix the cart");
});
