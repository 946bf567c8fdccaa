// Contract: aggregates — every metric, group_by (arrays by element), group_by_time in a non-UTC
// zone across DST, limits with other_count, and scope hiding.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PdppError } from "../../../src/core/errors.js";
import type { AggregateQuery } from "../../../src/store/store.js";
import type { TestBackend } from "../../helpers/backends.js";
import { allMessages, CONNECTOR, type Loaded, openLoaded, scopeOf } from "./fixtures.js";

export function aggregateContract(backend: TestBackend): void {
  describe("aggregates", () => {
    let L: Loaded;
    let connC: string;
    before(async () => {
      L = await openLoaded(backend);
      connC = (await L.store.ensureConnection(CONNECTOR, "Mail C (DST)")).connection_id;
      const times = [
        "2024-03-10T04:30:00Z", // 2024-03-09 23:30 EST
        "2024-03-10T06:59:00Z", // 01:59 EST
        "2024-03-10T07:00:00Z", // 03:00 EDT (02:00 does not exist)
        "2024-03-11T03:59:00Z", // 2024-03-10 23:59 EDT
        "2024-03-11T04:00:00Z", // 2024-03-11 00:00 EDT
      ];
      await L.store.applyBatch(
        connC,
        "messages",
        times.map((sent_at, i) => ({
          op: "upsert" as const,
          data: { message_id: `d${i}`, sent_at, size_bytes: 10 * (i + 1) },
        })),
      );
    });
    after(async () => L.opened.cleanup());
    const agg = (query: Partial<AggregateQuery>, scope = scopeOf(L)) =>
      L.store.aggregate([scope], { metric: "count", conditions: [], limit: 10, ...query });
    const sizes = () =>
      allMessages(L)
        .map((m) => m.size_bytes)
        .filter((s): s is number => typeof s === "number");

    test("metrics without grouping", async () => {
      assert.deepEqual(await agg({}), { value: 30, filteredRecordCount: 30 });
      assert.deepEqual(await agg({ field: "size_bytes" }), { value: 29, filteredRecordCount: 30 });
      assert.deepEqual(await agg({ metric: "sum", field: "size_bytes" }), {
        value: sizes().reduce((a, b) => a + b, 0),
        filteredRecordCount: 30,
      });
      assert.deepEqual(await agg({ metric: "min", field: "size_bytes" }), {
        value: 0,
        filteredRecordCount: 30,
      });
      assert.deepEqual(await agg({ metric: "max", field: "size_bytes" }), {
        value: 400,
        filteredRecordCount: 30,
      });
      assert.deepEqual(await agg({ metric: "min", field: "sent_at" }), {
        value: "2024-01-01T00:00:00.000Z",
        filteredRecordCount: 30,
      });
      assert.deepEqual(await agg({ metric: "count_distinct", field: "from" }), {
        value: 3,
        filteredRecordCount: 30,
      });
    });

    test("conditions and time range apply to every number", async () => {
      const alice = await agg({
        metric: "sum",
        field: "size_bytes",
        conditions: [{ field: "from", op: "eq", value: "alice@example.com" }],
      });
      const expected = allMessages(L)
        .filter((m) => m.from === "alice@example.com")
        .reduce((s, m) => s + ((m.size_bytes as number | null) ?? 0), 0);
      assert.deepEqual(alice, { value: expected, filteredRecordCount: 10 });
      const ranged = await agg({}, scopeOf(L, { since: "2024-02-01T00:00:00Z" }));
      const inRange = allMessages(L).filter(
        (m) => typeof m.sent_at === "string" && m.sent_at >= "2024-02-01T00:00:00.000Z",
      );
      assert.deepEqual(ranged, { value: inRange.length, filteredRecordCount: inRange.length });
      const empty = scopeOf(L, { since: "2030-01-01T00:00:00Z" });
      assert.deepEqual(await agg({ metric: "sum", field: "size_bytes" }, empty), {
        value: null,
        filteredRecordCount: 0,
      });
      assert.deepEqual(await agg({}, empty), { value: 0, filteredRecordCount: 0 });
      assert.deepEqual(await agg({}, scopeOf(L, { connectionIds: [L.connB] })), {
        value: 15,
        filteredRecordCount: 15,
      });
    });

    test("group_by orders by value desc then key asc, with limit and other_count", async () => {
      assert.deepEqual(await agg({ groupBy: "from" }), {
        groups: [
          { key: "alice@example.com", value: 10 },
          { key: "bob@example.com", value: 10 },
          { key: "carol@example.com", value: 10 },
        ],
        groupCount: 3,
        otherCount: 0,
        filteredRecordCount: 30,
      });
      assert.deepEqual(await agg({ groupBy: "from", limit: 1 }), {
        groups: [{ key: "alice@example.com", value: 10 }],
        groupCount: 3,
        otherCount: 20,
        filteredRecordCount: 30,
      });
      const flagged = await agg({ groupBy: "flagged" });
      assert.deepEqual(flagged.groups, [
        { key: "false", value: 22 },
        { key: "true", value: 8 },
      ]);
      const maxSize = await agg({ groupBy: "from", metric: "max", field: "size_bytes" });
      assert.deepEqual(maxSize.groups, [
        { key: "alice@example.com", value: 400 },
        { key: "bob@example.com", value: 400 },
        { key: "carol@example.com", value: 400 },
      ]);
    });

    test("group_by an array field groups by element", async () => {
      const result = await agg({ groupBy: "labels" });
      const counts = new Map<string, number>();
      for (const m of allMessages(L))
        for (const l of m.labels as string[]) counts.set(l, (counts.get(l) ?? 0) + 1);
      const expected = [...counts]
        .map(([key, value]) => ({ key, value }))
        .sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : 1));
      assert.deepEqual(result.groups, expected);
      assert.equal(result.groupCount, counts.size);
      assert.equal(result.filteredRecordCount, 30);
    });

    test("group_by_time by month in UTC: most recent buckets, ascending", async () => {
      const months = new Map<string, number>();
      for (const m of allMessages(L))
        if (typeof m.sent_at === "string")
          months.set(m.sent_at.slice(0, 7), (months.get(m.sent_at.slice(0, 7)) ?? 0) + 1);
      const expected = [...months].sort().map(([key, value]) => ({ key, value }));
      const byMonth = { field: "sent_at", granularity: "month" as const, timeZone: "UTC" };
      const all = await agg({ groupByTime: byMonth });
      assert.deepEqual(all, {
        groups: expected,
        groupCount: expected.length,
        otherCount: 0,
        filteredRecordCount: 30,
      });
      const recent = await agg({ groupByTime: byMonth, limit: 2 });
      assert.deepEqual(recent.groups, expected.slice(-2));
      assert.equal(recent.otherCount, expected[0].value);
    });

    test("group_by_time in America/New_York across the DST change", async () => {
      const scope = scopeOf(L, { connectionIds: [connC] });
      const day = await agg(
        { groupByTime: { field: "sent_at", granularity: "day", timeZone: "America/New_York" } },
        scope,
      );
      assert.deepEqual(day.groups, [
        { key: "2024-03-09", value: 1 },
        { key: "2024-03-10", value: 3 },
        { key: "2024-03-11", value: 1 },
      ]);
      const hour = await agg(
        {
          metric: "sum",
          field: "size_bytes",
          groupByTime: { field: "sent_at", granularity: "hour", timeZone: "America/New_York" },
        },
        scope,
      );
      assert.deepEqual(hour.groups, [
        { key: "2024-03-09T23", value: 10 },
        { key: "2024-03-10T01", value: 20 },
        { key: "2024-03-10T03", value: 30 },
        { key: "2024-03-10T23", value: 40 },
        { key: "2024-03-11T00", value: 50 },
      ]);
      const utc = await agg(
        { groupByTime: { field: "sent_at", granularity: "day", timeZone: "UTC" } },
        scope,
      );
      assert.deepEqual(utc.groups, [
        { key: "2024-03-10", value: 3 },
        { key: "2024-03-11", value: 2 },
      ]);
    });

    test("typed errors: hidden fields and unknown zones", async () => {
      const narrow = scopeOf(L, { fields: ["subject"] });
      for (const query of [{ groupBy: "from" }, { metric: "sum" as const, field: "size_bytes" }]) {
        await assert.rejects(
          agg(query, narrow),
          (e: unknown) => e instanceof PdppError && e.code === "field_not_granted",
        );
      }
      await assert.rejects(
        agg({ groupByTime: { field: "sent_at", granularity: "day", timeZone: "Nowhere/Atlantis" } }),
        (e: unknown) => e instanceof PdppError && e.code === "invalid_request" && e.param === "time_zone",
      );
    });
  });
}
