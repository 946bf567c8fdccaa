// Contract: batch ingest (counts, rejections, atomicity), versions, tombstones and listChanges.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { payloadDigest } from "../../../src/core/canonical-json.js";
import { PdppError } from "../../../src/core/errors.js";
import type { Store } from "../../../src/store/store.js";
import type { OpenedStore, TestBackend } from "../../helpers/backends.js";
import { CONNECTOR, MANIFEST, scopeOf } from "./fixtures.js";

export function ingestContract(backend: TestBackend): void {
  describe("ingest, versions, tombstones, changes", () => {
    let opened: OpenedStore;
    let store: Store;
    let connA: string;
    let connB: string;
    before(async () => {
      opened = await backend.open();
      store = opened.store;
      await store.putManifest(MANIFEST);
      connA = (await store.ensureConnection(CONNECTOR, "A")).connection_id;
      connB = (await store.ensureConnection(CONNECTOR, "B")).connection_id;
    });
    after(async () => opened.cleanup());
    const scope = () => scopeOf({ connA, connB });
    const msg = (id: string, extra: Record<string, unknown> = {}) => ({
      message_id: id,
      subject: `subject ${id}`,
      sent_at: "2024-02-01T10:00:00Z",
      body: `body of ${id}`,
      ...extra,
    });

    test("added / unchanged / updated / deleted counts", async () => {
      const first = await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("a1") },
        { op: "upsert", data: msg("a2") },
      ]);
      assert.deepEqual(first, { added: 2, updated: 0, unchanged: 0, deleted: 0, rejected: [] });
      const second = await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("a1") },
        { op: "upsert", data: msg("a2", { subject: "changed" }) },
        { op: "delete", data: { message_id: "a1" } },
        { op: "delete", data: { message_id: "never-existed" } },
      ]);
      assert.deepEqual(second, { added: 0, updated: 1, unchanged: 2, deleted: 1, rejected: [] });
      // Re-adding a deleted record counts as added.
      const third = await store.applyBatch(connA, "messages", [{ op: "upsert", data: msg("a1") }]);
      assert.deepEqual(third, { added: 1, updated: 0, unchanged: 0, deleted: 0, rejected: [] });
    });

    test("same record ids on two connections are independent", async () => {
      await store.applyBatch(connB, "messages", [{ op: "upsert", data: msg("a1", { subject: "on B" }) }]);
      const a = await store.getRecord(scope(), { connectionId: connA, recordId: "a1" });
      const b = await store.getRecord(scope(), { connectionId: connB, recordId: "a1" });
      assert.equal(a?.data.subject, "subject a1");
      assert.equal(b?.data.subject, "on B");
    });

    test("invalid ops are rejected with index and reason; the rest apply", async () => {
      const result = await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("r1") },
        { op: "upsert", data: { subject: "no key" } },
        { op: "upsert", data: msg("r2", { body: 42 }) },
        { op: "upsert", data: msg("r3", { sent_at: "not a time" }) },
        { op: "bogus", data: msg("r4") } as never,
        { op: "delete", data: {} },
        { op: "upsert", data: msg("r5", { size_bytes: "big" }) },
      ]);
      assert.equal(result.added, 1);
      assert.deepEqual(
        result.rejected.map((r) => r.index),
        [1, 2, 3, 4, 5, 6],
      );
      for (const r of result.rejected) assert.ok(r.reason.length > 5, r.reason);
      assert.match(result.rejected[0].reason, /message_id/);
      assert.match(result.rejected[1].reason, /body/);
      assert.match(result.rejected[2].reason, /sent_at/);
      assert.match(result.rejected[5].reason, /size_bytes/);
      assert.equal(await store.getRecord(scope(), { connectionId: connA, recordId: "r2" }), null);
    });

    test("unknown connection or stream throws a typed error and writes nothing", async () => {
      await assert.rejects(
        store.applyBatch("cin_000000000000", "messages", [{ op: "upsert", data: msg("z") }]),
        (e: unknown) => e instanceof PdppError && e.code === "connection_not_found",
      );
      await assert.rejects(
        store.applyBatch(connA, "nope", [{ op: "upsert", data: msg("z") }]),
        (e: unknown) => e instanceof PdppError && e.code === "stream_not_found",
      );
    });

    test("record counts stay exact through adds, updates, deletes, re-creations and a deleted connection", async () => {
      const connC = (await store.ensureConnection(CONNECTOR, "Counted")).connection_id;
      const counted = { ...scope(), connectionIds: [connC] };
      // The time-ranged scope counts with a query over the records (every message is from 2024).
      const ranged = { ...counted, since: "2000-01-01T00:00:00Z" };
      const expect = async (n: number) => {
        assert.deepEqual(await store.countRecords(counted), { [connC]: n });
        assert.deepEqual(await store.countRecords(ranged), { [connC]: n });
        // The batched form answers the same, in order, for kept counts and ranged scopes alike.
        assert.deepEqual(
          await store.countRecordsMany([ranged, counted, { ...counted, connectionIds: [connA] }]),
          [{ [connC]: n }, { [connC]: n }, await store.countRecords({ ...counted, connectionIds: [connA] })],
        );
      };
      await expect(0);
      await store.applyBatch(
        connC,
        "messages",
        [1, 2, 3, 4].map((i) => ({ op: "upsert", data: msg(`k${i}`) })),
      );
      await expect(4);
      await store.applyBatch(connC, "messages", [
        { op: "upsert", data: msg("k1", { subject: "changed" }) }, // update: no change in count
        { op: "delete", data: { message_id: "k2" } },
        { op: "delete", data: { message_id: "k2" } }, // already deleted
        { op: "delete", data: { message_id: "absent" } },
        { op: "upsert", data: msg("k5") },
        { op: "delete", data: { message_id: "k5" } }, // added and deleted in one batch
      ]);
      await expect(3);
      await store.applyBatch(connC, "messages", [
        { op: "upsert", data: msg("k2") }, // re-created from its tombstone
        { op: "upsert", data: msg("k3") }, // unchanged
      ]);
      await expect(4);
      await store.applyBatch(
        connC,
        "messages",
        [1, 2, 3, 4].map((i) => ({ op: "delete", data: { message_id: `k${i}` } })),
      );
      await expect(0);
      await store.applyBatch(connC, "messages", [{ op: "upsert", data: msg("k9") }]);
      await expect(1);
      assert.equal(await store.deleteConnection(connC), true);
      const again = (await store.ensureConnection(CONNECTOR, "Counted")).connection_id;
      assert.deepEqual(await store.countRecords({ ...counted, connectionIds: [again] }), { [again]: 0 });
    });

    test("a batch is all or nothing: an op that cannot be stored never leaves a partial batch", async () => {
      const circular: Record<string, unknown> = msg("c2");
      circular.extra = circular;
      const before = await store.countRecords(scope());
      let result: Awaited<ReturnType<Store["applyBatch"]>> | null = null;
      try {
        result = await store.applyBatch(connA, "messages", [
          { op: "upsert", data: msg("c1") },
          { op: "upsert", data: circular },
        ]);
      } catch {
        result = null;
      }
      const afterCounts = await store.countRecords(scope());
      const c1 = await store.getRecord(scope(), { connectionId: connA, recordId: "c1" });
      if (result === null) {
        assert.deepEqual(afterCounts, before);
        assert.equal(c1, null);
      } else {
        assert.deepEqual(
          result.rejected.map((r) => r.index),
          [1],
        );
        assert.equal(afterCounts[connA], before[connA] + 1);
        assert.notEqual(c1, null);
      }
      assert.equal(await store.getRecord(scope(), { connectionId: connA, recordId: "c2" }), null);
    });

    test("versions increase store-wide; unchanged keeps the version; digest is the payload digest", async () => {
      await store.applyBatch(connA, "messages", [{ op: "upsert", data: msg("v1") }]);
      const v1 = await store.getRecord(scope(), { connectionId: connA, recordId: "v1" });
      await store.applyBatch(connB, "messages", [{ op: "upsert", data: msg("v2") }]);
      const v2 = await store.getRecord(scope(), { connectionId: connB, recordId: "v2" });
      assert.ok(v1 && v2);
      assert.ok(v2.version > v1.version);
      assert.equal(v1.digest, payloadDigest(msg("v1")));
      await store.applyBatch(connA, "messages", [{ op: "upsert", data: msg("v1") }]);
      assert.equal(
        (await store.getRecord(scope(), { connectionId: connA, recordId: "v1" }))?.version,
        v1.version,
      );
      await store.applyBatch(connA, "messages", [{ op: "upsert", data: msg("v1", { subject: "new" }) }]);
      const updated = await store.getRecord(scope(), { connectionId: connA, recordId: "v1" });
      assert.ok(updated && updated.version > v2.version);
      assert.equal(updated.time, "2024-02-01T10:00:00.000Z");
      assert.equal(updated.deleted, false);
      assert.equal(updated.data.body, "body of v1");
    });

    test("tombstones are hidden from reads and appear once in listChanges", async () => {
      const start = (await store.listChanges([scope()], { afterVersion: 0, limit: 1000 })).lastVersion;
      await store.applyBatch(connA, "messages", [
        { op: "upsert", data: msg("t1") },
        { op: "upsert", data: msg("t2") },
      ]);
      await store.applyBatch(connA, "messages", [{ op: "delete", data: { message_id: "t1" } }]);
      assert.equal(await store.getRecord(scope(), { connectionId: connA, recordId: "t1" }), null);
      const listed = await store.listRecords([scope()], {
        conditions: [],
        sort: { field: "sent_at", direction: "asc" },
        limit: 100,
      });
      assert.equal(
        listed.records.some((r) => r.recordId === "t1"),
        false,
      );
      const changes = await store.listChanges([scope()], { afterVersion: start, limit: 100 });
      assert.deepEqual(
        changes.records.map((r) => [r.recordId, r.deleted]),
        [
          ["t2", false],
          ["t1", true],
        ],
      );
      const tombstone = changes.records[1];
      assert.deepEqual(tombstone.data, { message_id: "t1" });
      assert.equal(changes.lastVersion, tombstone.version);
      assert.equal(changes.hasMore, false);
      const none = await store.listChanges([scope()], { afterVersion: changes.lastVersion, limit: 10 });
      assert.deepEqual(none, { records: [], hasMore: false, lastVersion: changes.lastVersion });
    });

    test("listChanges pages in version order and honours scope and projection", async () => {
      const all = await store.listChanges([scope()], { afterVersion: 0, limit: 1000 });
      const versions = all.records.map((r) => r.version);
      assert.deepEqual(
        versions,
        [...versions].sort((x, y) => x - y),
      );
      assert.equal(new Set(versions).size, versions.length);
      const paged: number[] = [];
      let afterVersion = 0;
      for (;;) {
        const page = await store.listChanges([scope()], { afterVersion, limit: 3, fields: ["subject"] });
        paged.push(...page.records.map((r) => r.version));
        for (const r of page.records) {
          for (const key of Object.keys(r.data)) assert.ok(["message_id", "subject"].includes(key), key);
        }
        afterVersion = page.lastVersion;
        if (!page.hasMore) break;
      }
      assert.deepEqual(paged, versions);
      const onlyB = await store.listChanges([scopeOf({ connA, connB }, { connectionIds: [connB] })], {
        afterVersion: 0,
        limit: 1000,
      });
      assert.ok(onlyB.records.length > 0);
      assert.ok(onlyB.records.every((r) => r.connectionId === connB));
      const ranged = await store.listChanges([scopeOf({ connA, connB }, { since: "2030-01-01T00:00:00Z" })], {
        afterVersion: 0,
        limit: 1000,
      });
      assert.deepEqual(ranged.records, []);
    });

    test("text fields round-trip exactly, including astral characters and chunk boundaries", async () => {
      const long = `${"é😀".repeat(40000)}END`;
      await store.applyBatch(connA, "messages", [{ op: "upsert", data: msg("long", { body: long }) }]);
      const got = await store.getRecord(scope(), { connectionId: connA, recordId: "long" });
      assert.equal(got?.data.body, long);
      assert.equal(got?.digest, payloadDigest(msg("long", { body: long })));
    });
  });
}
