// SQLite group_by_time counts (UTC prefix groups bucketed in JS, straddling groups per row) equal a
// brute-force count with core bucketKey, in zones with DST, sub-hour offsets and ISO week-years.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest } from "../../../src/core/manifest.js";
import { bucketKey } from "../../../src/core/time-buckets.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { Store, TimeGranularity } from "../../../src/store/store.js";

const manifest: Manifest = {
  connector_key: "events",
  display_name: "Events",
  version: "1",
  streams: [
    {
      name: "events",
      primary_key: ["id"],
      time_field: "at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          kind: { type: "string" },
        },
      },
      query: { exact_filters: ["kind"], aggregations: { group_by_time: ["at"] } },
    },
  ],
};

// Deterministic spread: every 37 minutes 13 seconds across DST changes, plus edge instants.
const times: string[] = [
  "2024-03-31T00:59:59.999Z",
  "2024-03-31T01:00:00.000Z",
  "2024-10-27T00:30:00.000Z",
  "2024-10-27T01:30:00.000Z",
  "2024-12-30T12:00:00.000Z",
  "2021-01-03T23:30:00.000Z",
  "2023-12-31T23:30:00.000Z",
  "2024-04-06T15:45:00.000Z", // Lord Howe: 30-minute DST change
];
for (let ms = Date.parse("2024-03-01T00:00:00Z"); ms < Date.parse("2024-04-15T00:00:00Z"); ms += 2_233_000)
  times.push(new Date(ms).toISOString());
for (let ms = Date.parse("2024-10-20T00:00:00Z"); ms < Date.parse("2024-11-10T00:00:00Z"); ms += 2_233_000)
  times.push(new Date(ms).toISOString());

let dir: string;
let store: Store;
let scope: StreamScope;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "pdpp-agg-time-"));
  store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  await store.putManifest(manifest);
  const connection = (await store.ensureConnection("events", "e")).connection_id;
  const ops = times.map((at, i) => ({
    op: "upsert" as const,
    data: { id: `e${i}`, at, kind: i % 3 ? "a" : "b" },
  }));
  ops.push({ op: "upsert", data: { id: "no-time", at: null as unknown as string, kind: "a" } });
  const result = await store.applyBatch(connection, "events", ops);
  assert.deepEqual(result.rejected, []);
  scope = {
    connectorKey: "events",
    stream: manifest.streams[0],
    connectionIds: [connection],
    fields: "all",
    since: null,
    until: null,
  };
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("count by time bucket equals core bucketKey for every zone and granularity", async () => {
  const granularities: TimeGranularity[] = ["minute", "hour", "day", "week", "month", "quarter", "year"];
  const zones = [
    "UTC",
    "Europe/Paris",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Australia/Lord_Howe",
    "America/St_Johns",
  ];
  for (const timeZone of zones) {
    for (const granularity of granularities) {
      const result = await store.aggregate([scope], {
        metric: "count",
        conditions: [{ field: "kind", op: "eq", value: "a" }],
        groupByTime: { field: "at", granularity, timeZone },
        limit: 100_000,
      });
      const expected = new Map<string, number>();
      times.forEach((t, i) => {
        if (i % 3 === 0) return; // kind "b" is filtered out
        const key = bucketKey(t, granularity, timeZone);
        expected.set(key, (expected.get(key) ?? 0) + 1);
      });
      const keys = [...expected.keys()].sort();
      assert.deepEqual(
        result.groups,
        keys.map((key) => ({ key, value: expected.get(key) })),
        `${timeZone} ${granularity}`,
      );
      // The record without a time passes the filter but sits in no bucket.
      assert.equal(result.filteredRecordCount, times.filter((_, i) => i % 3 !== 0).length + 1);
      assert.equal(result.groupCount, keys.length);
      assert.equal(result.otherCount, 0);
    }
  }
});

test("limit keeps the most recent buckets and counts the rest in otherCount", async () => {
  const result = await store.aggregate([scope], {
    metric: "count",
    conditions: [],
    groupByTime: { field: "at", granularity: "day", timeZone: "Asia/Kolkata" },
    limit: 3,
  });
  const expected = new Map<string, number>();
  for (const t of times) {
    const key = bucketKey(t, "day", "Asia/Kolkata");
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const keys = [...expected.keys()].sort();
  assert.deepEqual(
    result.groups,
    keys.slice(-3).map((key) => ({ key, value: expected.get(key) })),
  );
  assert.equal(
    result.otherCount,
    keys.slice(0, -3).reduce((sum, key) => sum + (expected.get(key) ?? 0), 0),
  );
});
