// Unit tests for time-bucket keys in IANA zones, including DST transitions and ISO weeks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PdppError } from "../../src/core/errors.js";
import { bucketKey, resolveTimeZone } from "../../src/core/time-buckets.js";

test("bucketKey formats every granularity in UTC", () => {
  const t = "2024-03-05T14:07:45.000Z";
  assert.equal(bucketKey(t, "minute", "UTC"), "2024-03-05T14:07");
  assert.equal(bucketKey(t, "hour", "UTC"), "2024-03-05T14");
  assert.equal(bucketKey(t, "day", "UTC"), "2024-03-05");
  assert.equal(bucketKey(t, "week", "UTC"), "2024-W10");
  assert.equal(bucketKey(t, "month", "UTC"), "2024-03");
  assert.equal(bucketKey(t, "quarter", "UTC"), "2024-Q1");
  assert.equal(bucketKey(t, "year", "UTC"), "2024");
});

test("bucketKey uses local time across DST (America/New_York, Asia/Kolkata)", () => {
  // 2024-03-10 07:30Z is 03:30 EDT (after the spring-forward at 07:00Z); 06:30Z is 01:30 EST.
  assert.equal(bucketKey("2024-03-10T06:30:00.000Z", "hour", "America/New_York"), "2024-03-10T01");
  assert.equal(bucketKey("2024-03-10T07:30:00.000Z", "hour", "America/New_York"), "2024-03-10T03");
  assert.equal(bucketKey("2024-01-01T03:00:00.000Z", "day", "America/New_York"), "2023-12-31");
  assert.equal(bucketKey("2024-01-01T03:00:00.000Z", "year", "America/New_York"), "2023");
  assert.equal(bucketKey("2024-03-31T18:30:00.000Z", "month", "Asia/Kolkata"), "2024-04");
  assert.equal(bucketKey("2024-03-31T18:29:00.000Z", "minute", "Asia/Kolkata"), "2024-03-31T23:59");
});

test("ISO weeks at year edges", () => {
  assert.equal(bucketKey("2021-01-03T12:00:00.000Z", "week", "UTC"), "2020-W53");
  assert.equal(bucketKey("2024-12-30T12:00:00.000Z", "week", "UTC"), "2025-W01");
});

test("unknown zones are invalid_request with param time_zone", () => {
  assert.throws(
    () => bucketKey("2024-03-05T14:07:45.000Z", "day", "Mars/Olympus"),
    (e: unknown) => e instanceof PdppError && e.code === "invalid_request" && e.param === "time_zone",
  );
  assert.equal(resolveTimeZone("UTC"), "UTC");
});
