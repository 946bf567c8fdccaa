// Contract: what a changes_since bookmark relies on (core/changes-bookmark.ts). Every change of a
// batch draws its own version, in op order, all sharing the batch's emitted_at; resuming after a
// delivered version is exact whatever became of that record since (deleted, updated, updated in
// hidden fields only, moved out of the range); a tombstone keeps the time the record had, even one
// set earlier in its own batch; and changesPositionBefore (old-format bookmarks) resumes before
// every visible change observed at or after an emitted_at, whatever hidden rows lie around it.
import assert from "node:assert/strict";
import { after, before, describe, mock, test } from "node:test";
import type { Store } from "../../../src/store/store.js";
import type { OpenedStore, TestBackend } from "../../helpers/backends.js";
import { CONNECTOR, MANIFEST, scopeOf } from "./fixtures.js";

const T0 = Date.parse("2026-02-01T00:00:00Z");

export function changesResumeContract(backend: TestBackend): void {
  describe("changes resume", () => {
    let opened: OpenedStore;
    let store: Store;
    let connA: string;
    let connB: string;
    before(async () => {
      mock.timers.enable({ apis: ["Date"], now: T0 });
      opened = await backend.open();
      store = opened.store;
      await store.putManifest(MANIFEST);
      connA = (await store.ensureConnection(CONNECTOR, "A")).connection_id;
      connB = (await store.ensureConnection(CONNECTOR, "B")).connection_id;
    });
    after(async () => {
      mock.timers.reset();
      await opened.cleanup();
    });
    const msg = (id: string, extra: Record<string, unknown> = {}) => ({
      message_id: id,
      subject: `subject ${id}`,
      sent_at: "2024-02-01T10:00:00Z",
      body: `body of ${id}`,
      secret_note: "n0",
      ...extra,
    });
    const onlyA = () => scopeOf({ connA, connB }, { connectionIds: [connA] });
    const ids = (records: { recordId: string; deleted: boolean }[]) =>
      records.map((r) => (r.deleted ? `-${r.recordId}` : r.recordId));
    const tip = async () =>
      (await store.listChanges([scopeOf({ connA, connB })], { afterVersion: 0, limit: 100 })).lastVersion;

    test("each change of a batch has its own version, in op order, and the batch's emitted_at", async () => {
      const start = await tip();
      mock.timers.setTime(T0 + 1000);
      await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("v3") },
        { op: "upsert", data: msg("v1") },
        { op: "upsert", data: msg("v2") },
        { op: "upsert", data: msg("v1", { subject: "again" }) },
        { op: "upsert", data: msg("v4") },
        { op: "delete", data: { message_id: "v4" } },
      ]);
      const page = await store.listChanges([onlyA()], { afterVersion: start, limit: 100 });
      assert.deepEqual(ids(page.records), ["v3", "v2", "v1", "-v4"]);
      const versions = page.records.map((r) => r.version);
      assert.deepEqual(
        versions,
        [...versions].sort((a, b) => a - b),
      );
      assert.equal(new Set(versions).size, 4);
      assert.deepEqual(
        new Set(page.records.map((r) => r.emittedAt)),
        new Set([new Date(T0 + 1000).toISOString()]),
      );
    });

    test("resuming after a delivered version is exact whatever became of that record", async () => {
      mock.timers.setTime(T0 + 2000);
      const start = await tip();
      await store.applyBatch(
        connA,
        "messages",
        Array.from({ length: 8 }, (_, i) => ({ op: "upsert" as const, data: msg(`r${i}`) })),
      );
      const all = onlyA();
      const projected = scopeOf({ connA, connB }, { connectionIds: [connA], fields: ["subject"] });
      const ranged = scopeOf({ connA, connB }, { connectionIds: [connA], since: "2024-01-01T00:00:00Z" });
      const at = async (scope: typeof all) =>
        (await store.listChanges([scope], { afterVersion: start, limit: 8 })).lastVersion;
      const [pAll, pProjected, pRanged] = [await at(all), await at(projected), await at(ranged)];
      // Same millisecond: the last record read is deleted, another updated in a hidden field only,
      // another moved out of the range, another updated visibly.
      await store.applyBatch(connA, "messages", [
        { op: "delete", data: { message_id: "r7" } },
        { op: "upsert", data: msg("r6", { secret_note: "n1" }) },
        { op: "upsert", data: msg("r5", { sent_at: "2020-01-01T00:00:00Z" }) },
        { op: "upsert", data: msg("r4", { subject: "edited" }) },
      ]);
      const after = async (scope: typeof all, from: number) =>
        ids((await store.listChanges([scope], { afterVersion: from, limit: 100 })).records);
      assert.deepEqual(await after(all, pAll), ["-r7", "r6", "r5", "r4"]);
      assert.deepEqual(await after(projected, pProjected), ["-r7", "r4"]);
      assert.deepEqual(await after(ranged, pRanged), ["-r7", "r6", "r4"]);
      // Each scope's position after its last change is its own end.
      for (const scope of [all, projected, ranged]) {
        const end = (await store.listChanges([scope], { afterVersion: 0, limit: 1000 })).lastVersion;
        assert.deepEqual(await after(scope, end), []);
      }
    });

    test("a tombstone keeps the time its record had, set earlier in the same batch too", async () => {
      mock.timers.setTime(T0 + 3000);
      const start = await tip();
      await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("k1") },
        { op: "upsert", data: msg("k2") },
      ]);
      await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("k1", { sent_at: "2020-06-01T00:00:00Z" }) },
        { op: "delete", data: { message_id: "k1" } },
        { op: "delete", data: { message_id: "k2" } },
        { op: "upsert", data: msg("k3", { sent_at: "2020-06-01T00:00:00Z" }) },
        { op: "delete", data: { message_id: "k3" } },
      ]);
      const recent = scopeOf({ connA, connB }, { connectionIds: [connA], since: "2023-01-01T00:00:00Z" });
      const old = scopeOf({ connA, connB }, { connectionIds: [connA], until: "2023-01-01T00:00:00Z" });
      const read = async (scope: typeof recent) =>
        (await store.listChanges([scope], { afterVersion: start, limit: 100 })).records.map((r) => [
          r.recordId,
          r.deleted,
          r.time,
        ]);
      assert.deepEqual(await read(recent), [["k2", true, "2024-02-01T10:00:00.000Z"]]);
      assert.deepEqual(await read(old), [
        ["k1", true, "2020-06-01T00:00:00.000Z"],
        ["k3", true, "2020-06-01T00:00:00.000Z"],
      ]);
    });

    test("changesPositionBefore resumes before every visible change observed at or after an emitted_at", async () => {
      const start = await tip();
      const times = [T0 + 10_000, T0 + 20_000, T0 + 30_000];
      for (const [i, t] of times.entries()) {
        mock.timers.setTime(t);
        // Hidden rows (another connection) written around the visible ones, in the same millisecond.
        await store.applyBatch(connB, "messages", [{ op: "upsert", data: msg(`h${i}`) }]);
        await store.applyBatch(connA, "messages", [
          { op: "upsert", data: msg(`p${i}a`) },
          { op: "upsert", data: msg(`p${i}b`) },
        ]);
        await store.applyBatch(connB, "messages", [{ op: "upsert", data: msg(`h${i}x`) }]);
      }
      const scope = onlyA();
      for (const [i, t] of times.entries()) {
        const position = await store.changesPositionBefore([scope], new Date(t).toISOString());
        const page = await store.listChanges([scope], {
          afterVersion: Math.max(position, start),
          limit: 100,
        });
        assert.deepEqual(
          ids(page.records),
          times.slice(i).flatMap((_, j) => [`p${i + j}a`, `p${i + j}b`]),
        );
      }
      assert.equal(await store.changesPositionBefore([scope], "2000-01-01T00:00:00.000Z"), 0);
    });
  });
}
