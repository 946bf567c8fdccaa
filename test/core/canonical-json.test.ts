// Unit tests for canonical JSON and payload digests.
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson, payloadDigest } from "../../src/core/canonical-json.js";

test("canonicalJson sorts keys at every depth and drops undefined members", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } }),
    '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson([undefined, null]), "[null,null]");
  assert.equal(canonicalJson("x"), '"x"');
});

test("payloadDigest ignores key order and changes with any value", () => {
  const a = payloadDigest({ x: 1, y: "two" });
  assert.equal(a, payloadDigest({ y: "two", x: 1 }));
  assert.notEqual(a, payloadDigest({ x: 1, y: "Two" }));
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
});
