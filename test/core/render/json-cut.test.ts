// Issue 9 item 3 in the preview cutter: a long array (or an object still huge after its strings
// are cut) is previewed as the start of its canonical JSON with an exact continuation; an object
// holding RS-cut text or a binary field is never cut as JSON (its JSON is not the stored value).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import { sha256Digest } from "../../../src/core/ids.js";
import { cutPayload } from "../../../src/core/render/record-preview.js";

describe("cutPayload: arrays and objects as canonical JSON", () => {
  test("a long array is its canonical JSON's first maxChars code points, with size and digest of the whole", () => {
    const items = [{ b: 1, a: "é😀" }, 2, [3]];
    const json = canonicalJson(items); // [{"a":"é😀","b":1},2,[3]]
    const { data, cut } = cutPayload({ items, short: [1] }, 8);
    assert.deepEqual(data, { items: [...json].slice(0, 8).join(""), short: [1] });
    assert.deepEqual(cut, [
      { path: "items", shown: 8, sizeChars: [...json].length, digest: sha256Digest(json), json: "array" },
    ]);
  });

  test("an object of many small members is cut whole; one holding RS-cut text or binary is walked", () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const json = canonicalJson(wide);
    const plain = cutPayload({ wide }, 16);
    assert.deepEqual(plain.data, { wide: json.slice(0, 16) });
    assert.deepEqual(plain.cut, [
      { path: "wide", shown: 16, sizeChars: json.length, digest: sha256Digest(json), json: "object" },
    ]);
    const withText = { ...wide, content: "preview" };
    const previews = { "wide.content": { size_chars: 5000, digest: "sha256:x", complete: false } };
    const cutText = cutPayload({ wide: withText }, 16, { previews });
    assert.deepEqual(cutText.data, { wide: withText });
    assert.deepEqual(cutText.cut, [{ path: "wide.content", shown: 7, sizeChars: 5000, digest: "sha256:x" }]);
    const withBinary = { ...wide, image: "QUJD" };
    const bin = cutPayload({ wide: withBinary }, 16, { binary: new Map([["wide.image", "image/png"]]) });
    assert.equal((bin.data.wide as Record<string, unknown>).k39, 39);
    assert.deepEqual(bin.cut, []);
  });
});
