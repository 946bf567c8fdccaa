// normalizeTime's fast path for already-normalised strings: returned as is when valid; anything
// out of range answers exactly as the slow path (Date.parse) always did.
import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeTime, tryNormalizeTime } from "../../src/core/time.js";

test("canonical strings come back unchanged", () => {
  for (const text of [
    "2024-02-29T23:59:59.999Z",
    "2000-02-29T00:00:00.000Z",
    "0000-01-01T00:00:00.000Z",
    "9999-12-31T23:59:59.999Z",
    "2019-04-30T12:30:45.123Z",
  ]) {
    assert.equal(normalizeTime(text), text);
    assert.equal(normalizeTime(text), new Date(Date.parse(text)).toISOString());
  }
});

test("out-of-range fields take the slow path and answer as Date.parse does", () => {
  for (const text of [
    "2023-02-29T00:00:00.000Z",
    "1900-02-29T00:00:00.000Z",
    "2024-04-31T00:00:00.000Z",
    "2024-13-01T00:00:00.000Z",
    "2024-00-10T00:00:00.000Z",
    "2024-01-00T00:00:00.000Z",
    "2024-01-01T24:00:00.000Z",
    "2024-01-01T23:60:00.000Z",
    "2024-01-01T23:59:60.000Z",
  ]) {
    const ms = Date.parse(text);
    const expected = Number.isFinite(ms) ? new Date(ms).toISOString() : null;
    assert.notEqual(expected, text);
    assert.equal(tryNormalizeTime(text), expected, text);
  }
  assert.equal(tryNormalizeTime("2023-02-29T00:00:00.000Z"), "2023-03-01T00:00:00.000Z");
  assert.throws(() => normalizeTime("2024-13-01T00:00:00.000Z"), { code: "invalid_request" });
});

test("other forms still normalise through the slow path", () => {
  assert.equal(normalizeTime(" 2024-03-05T14:07:00Z "), "2024-03-05T14:07:00.000Z");
  assert.equal(normalizeTime("2024-03-05T14:07:00.5+01:00"), "2024-03-05T13:07:00.500Z");
  assert.equal(normalizeTime("2024-03-05 14:07"), "2024-03-05T14:07:00.000Z");
});
