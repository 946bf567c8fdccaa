// Unit tests for code-point chunking and the chunk-spanning first-match scan.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CHUNK_CHARS,
  codePointLength,
  findFirstMatch,
  sliceCodePoints,
  splitChunks,
} from "../../src/core/text-chunks.js";

test("codePointLength counts astral characters once", () => {
  assert.equal(codePointLength("a😀b"), 3);
  assert.equal(codePointLength(""), 0);
  assert.equal(sliceCodePoints("a😀bc", 1, 3), "😀b");
  assert.equal(sliceCodePoints("a😀bc", 2), "bc");
});

test("splitChunks splits by code points and never halves a pair", () => {
  assert.equal(CHUNK_CHARS, 65536);
  assert.deepEqual(splitChunks("abcdefg", 3), ["abc", "def", "g"]);
  assert.deepEqual(splitChunks("😀😀😀😀😀", 2), ["😀😀", "😀😀", "😀"]);
  assert.deepEqual(splitChunks("a😀b😀c", 2), ["a😀", "b😀", "c"]);
  assert.deepEqual(splitChunks("", 3), []);
  const big = "x".repeat(CHUNK_CHARS + 5);
  assert.deepEqual(
    splitChunks(big).map((c) => c.length),
    [CHUNK_CHARS, 5],
  );
});

test("findFirstMatch: case-insensitive, code-point offsets, first occurrence", () => {
  assert.deepEqual(findFirstMatch(["😀 Hello hello"], "HELLO"), { startChars: 2, endChars: 7 });
  assert.deepEqual(findFirstMatch(["ÉCOLE"], "école"), { startChars: 0, endChars: 5 });
  assert.deepEqual(findFirstMatch(["a.b"], "."), { startChars: 1, endChars: 2 });
  assert.equal(findFirstMatch(["abc", "def"], "xyz"), null);
});

test("findFirstMatch finds a match spanning chunk boundaries", () => {
  assert.deepEqual(findFirstMatch(["xxne", "edlexx"], "needle"), { startChars: 2, endChars: 8 });
  assert.deepEqual(findFirstMatch(["😀ab", "c", "d😀"], "abcd"), { startChars: 1, endChars: 5 });
  assert.deepEqual(findFirstMatch(["aaa", "aab"], "aab"), { startChars: 3, endChars: 6 });
  assert.deepEqual(findFirstMatch(splitChunks(`${"z".repeat(10)}NEEDLE`, 4), "needle"), {
    startChars: 10,
    endChars: 16,
  });
});

test("findFirstMatch treats regex syntax and `-`, `/` in q as literal text", () => {
  const text = "a-b/c (x+y)* [z] \\d $1 ^";
  for (const q of ["-", "b/c", "(x+y)*", "[z]", "\\d", "$1", "^"]) {
    const match = findFirstMatch([text], q);
    assert.deepEqual(match, { startChars: text.indexOf(q), endChars: text.indexOf(q) + q.length }, q);
  }
});
