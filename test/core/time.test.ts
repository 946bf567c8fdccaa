// Unit tests for normalizeTime: every accepted input form and the rejections.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PdppError } from "../../src/core/errors.js";
import { normalizeTime, tryNormalizeTime } from "../../src/core/time.js";

test("normalizeTime: ISO strings with zones become UTC with ms", () => {
  assert.equal(normalizeTime("2024-03-05T14:07:00Z"), "2024-03-05T14:07:00.000Z");
  assert.equal(normalizeTime("2024-03-05T14:07:00+02:00"), "2024-03-05T12:07:00.000Z");
  assert.equal(normalizeTime("2024-03-05T14:07:00.123456Z"), "2024-03-05T14:07:00.123Z");
});

test("normalizeTime: date-only and zoneless date-times are UTC", () => {
  assert.equal(normalizeTime("2024-03-05"), "2024-03-05T00:00:00.000Z");
  assert.equal(normalizeTime("2024-03-05 10:30"), "2024-03-05T10:30:00.000Z");
  assert.equal(normalizeTime("2024-03-05T10:30:15"), "2024-03-05T10:30:15.000Z");
});

test("normalizeTime: numbers are epoch seconds, or ms above 1e11", () => {
  assert.equal(normalizeTime(1709647620), "2024-03-05T14:07:00.000Z");
  assert.equal(normalizeTime(1709647620123), "2024-03-05T14:07:00.123Z");
  assert.equal(normalizeTime("1709647620"), "2024-03-05T14:07:00.000Z");
  assert.equal(normalizeTime(new Date(0)), "1970-01-01T00:00:00.000Z");
});

test("normalizeTime: null stays null, junk throws invalid_request", () => {
  assert.equal(normalizeTime(null), null);
  assert.equal(normalizeTime(undefined), null);
  for (const bad of ["not a date", "", Number.NaN, Number.POSITIVE_INFINITY, {}, true, "99999-01-01"]) {
    assert.throws(
      () => normalizeTime(bad),
      (e: unknown) => e instanceof PdppError && e.code === "invalid_request",
    );
    assert.equal(tryNormalizeTime(bad), null);
  }
});
