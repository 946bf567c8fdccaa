// The native well-formedness check behind validateRecord agrees with the defining regex (NUL or
// a lone surrogate) on every kind of string, in values and in keys.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamDef } from "../../src/core/manifest.js";
import { validateRecord } from "../../src/core/validate-record.js";

const stream: StreamDef = {
  name: "notes",
  primary_key: ["id"],
  schema: { type: "object", properties: { id: { type: "string" } } },
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what we look for
const DEFINITION = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const SAMPLES = [
  "plain",
  "",
  "😀 pair",
  "x\u0000y",
  "a\ud800",
  "\ud800b",
  "\udc00",
  "\udc00\ud800",
  "😀\udc00",
  "\ud83d\ude00\ud83d",
  `${"long text ".repeat(5000)}\ud800`,
  `${"long text ".repeat(5000)}😀`,
];

test("values and keys are rejected exactly when the defining regex matches", () => {
  for (const sample of SAMPLES) {
    const bad = DEFINITION.test(sample);
    const asValue = validateRecord({ id: "a", note: sample }, stream);
    assert.equal(
      asValue,
      bad ? "field note holds NUL or an unpaired surrogate, which cannot be stored" : null,
    );
    const asKey = validateRecord({ id: "a", meta: { [sample]: 1 } }, stream);
    assert.equal(asKey !== null, bad, JSON.stringify(sample.slice(-8)));
  }
});
