// Contract: projection, scope hiding (connections, time range), conditions, sort + exact keyset
// paging across two connections, counts and previews.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PdppError } from "../../../src/core/errors.js";
import type { TestBackend } from "../../helpers/backends.js";
import { allMessages, byteCompare, drain, type Loaded, openLoaded, scopeOf } from "./fixtures.js";

export function readsContract(backend: TestBackend): void {
  describe("reads: projection, hiding, conditions, sort, paging", () => {
    let L: Loaded;
    before(async () => {
      L = await openLoaded(backend);
    });
    after(async () => L.opened.cleanup());
    const listAll = { conditions: [], sort: { field: "sent_at", direction: "asc" as const }, limit: 100 };

    test("getRecord returns the full record shape", async () => {
      const r = await L.store.getRecord(scopeOf(L), { connectionId: L.connA, recordId: "m00" });
      assert.ok(r);
      assert.equal(r.connectionId, L.connA);
      assert.equal(r.connectorKey, "testmail");
      assert.equal(r.stream, "messages");
      assert.equal(r.recordId, "m00");
      assert.equal(r.time, "2024-01-01T00:00:00.000Z");
      assert.equal(r.deleted, false);
      assert.deepEqual(r.data, L.messages.a[0]);
      assert.equal(await L.store.getRecord(scopeOf(L), { connectionId: L.connB, recordId: "m00" }), null);
    });

    test("projection: granted ∩ requested, dotted paths, primary key always", async () => {
      const scope = scopeOf(L, { fields: ["subject", "meta.lang", "body"] });
      const r = await L.store.getRecord(scope, { connectionId: L.connA, recordId: "m00" });
      assert.deepEqual(r?.data, {
        message_id: "m00",
        subject: "Invoice March",
        meta: { lang: "fr" },
        body: L.messages.a[0].body,
      });
      const narrowed = await L.store.getRecord(
        scope,
        { connectionId: L.connA, recordId: "m00" },
        { fields: ["meta", "secret_note"] },
      );
      assert.deepEqual(narrowed?.data, { message_id: "m00", meta: { lang: "fr" } });
      const withTime = scopeOf(L, { fields: ["subject", "sent_at", "secret_note"] });
      const listed = await L.store.listRecords([withTime], { ...listAll, fields: ["subject"] });
      assert.equal(listed.records.length, 30);
      for (const rec of listed.records)
        assert.deepEqual(Object.keys(rec.data).sort(), ["message_id", "subject"]);
    });

    test("connection hiding: other connections do not exist", async () => {
      const onlyA = scopeOf(L, { connectionIds: [L.connA] });
      assert.equal(await L.store.getRecord(onlyA, { connectionId: L.connB, recordId: "m01" }), null);
      const { ids } = await drain(L.store, [onlyA], { ...listAll, limit: 7 });
      assert.equal(ids.length, 15);
      assert.ok(ids.every((id) => id.startsWith(`${L.connA}/`)));
      assert.deepEqual(await L.store.countRecords(onlyA), { [L.connA]: 15 });
      assert.deepEqual(await L.store.countRecords(scopeOf(L)), { [L.connA]: 15, [L.connB]: 15 });
    });

    test("time range: [since, until) hides records everywhere, null times hidden when bounded", async () => {
      const scope = scopeOf(L, { since: "2024-01-10T00:00:00Z", until: "2024-02-01T00:00:00Z" });
      const visible = allMessages(L).filter(
        (m) =>
          typeof m.sent_at === "string" &&
          m.sent_at >= "2024-01-10T00:00:00.000Z" &&
          m.sent_at < "2024-02-01T00:00:00.000Z",
      );
      const { ids } = await drain(L.store, [scope], { ...listAll, limit: 4 });
      assert.deepEqual(ids.sort(), visible.map((m) => `${m.connectionId}/${m.message_id}`).sort());
      const counts = await L.store.countRecords(scope);
      assert.equal(counts[L.connA] + counts[L.connB], visible.length);
      assert.equal(await L.store.getRecord(scope, { connectionId: L.connA, recordId: "m00" }), null);
      assert.equal(await L.store.getRecord(scope, { connectionId: L.connB, recordId: "m07" }), null);
      const count = await L.store.listRecords([scope], { ...listAll, countExact: true, limit: 1 });
      assert.equal(count.count, visible.length);
      // Exclusive until: a record exactly at `until` is hidden, one exactly at `since` is visible.
      const exact = scopeOf(L, { since: "2024-01-04T01:00:00.000Z", until: "2024-01-07T02:00:00Z" });
      const { ids: edge } = await drain(L.store, [exact], listAll);
      assert.deepEqual(edge, [`${L.connB}/m01`]);
    });

    test("conditions: eq on strings, arrays, booleans, nested; ranges on numbers and time", async () => {
      const ids = async (conditions: Parameters<typeof L.store.listRecords>[1]["conditions"]) =>
        (await drain(L.store, [scopeOf(L)], { ...listAll, conditions })).ids
          .map((id) => id.split("/")[1])
          .sort();
      const expect = (pred: (m: ReturnType<typeof allMessages>[number]) => boolean) =>
        allMessages(L)
          .filter(pred)
          .map((m) => m.message_id)
          .sort();
      assert.deepEqual(
        await ids([{ field: "from", op: "eq", value: "bob@example.com" }]),
        expect((m) => m.from === "bob@example.com"),
      );
      assert.deepEqual(
        await ids([{ field: "labels", op: "eq", value: "work" }]),
        expect((m) => (m.labels as string[]).includes("work")),
      );
      assert.deepEqual(
        await ids([{ field: "flagged", op: "eq", value: true }]),
        expect((m) => m.flagged === true),
      );
      assert.deepEqual(
        await ids([{ field: "meta.lang", op: "eq", value: "fr" }]),
        expect((m) => (m.meta as { lang: string }).lang === "fr"),
      );
      assert.deepEqual(
        await ids([
          { field: "size_bytes", op: "gte", value: 200 },
          { field: "size_bytes", op: "lt", value: 400 },
        ]),
        expect((m) => typeof m.size_bytes === "number" && m.size_bytes >= 200 && m.size_bytes < 400),
      );
      assert.deepEqual(
        await ids([{ field: "sent_at", op: "gt", value: "2024-03-01" }]),
        expect((m) => typeof m.sent_at === "string" && m.sent_at > "2024-03-01T00:00:00.000Z"),
      );
      assert.deepEqual(await ids([{ field: "sent_at", op: "lte", value: "2024-01-04T02:00:00+01:00" }]), [
        "m00",
        "m01",
      ]);
      assert.deepEqual(await ids([{ field: "from", op: "eq", value: "nobody" }]), []);
    });

    test("hidden fields cannot be filtered or sorted on", async () => {
      const scope = scopeOf(L, { fields: ["subject"] });
      await assert.rejects(
        L.store.listRecords([scope], { ...listAll, conditions: [{ field: "from", op: "eq", value: "x" }] }),
        (e: unknown) => e instanceof PdppError && e.code === "field_not_granted",
      );
      await assert.rejects(
        L.store.listRecords([scope], { ...listAll, sort: { field: "size_bytes", direction: "asc" } }),
        (e: unknown) => e instanceof PdppError && e.code === "field_not_granted",
      );
    });

    const oracle = (field: "sent_at" | "size_bytes", direction: "asc" | "desc") => {
      const sign = direction === "asc" ? 1 : -1;
      return allMessages(L)
        .sort((x, y) => {
          const vx = x[field] as string | number | null;
          const vy = y[field] as string | number | null;
          if (vx !== vy) {
            if (vx === null) return -sign;
            if (vy === null) return sign;
            return (vx < vy ? -1 : 1) * sign;
          }
          return (
            (byteCompare(x.connectionId, y.connectionId) || byteCompare(x.message_id, y.message_id)) * sign
          );
        })
        .map((m) => `${m.connectionId}/${m.message_id}`);
    };

    for (const field of ["sent_at", "size_bytes"] as const) {
      for (const direction of ["asc", "desc"] as const) {
        test(`sort ${direction} by ${field}: exact keyset over 2 connections with ties and nulls`, async () => {
          const expected = oracle(field, direction);
          for (const limit of [1, 2, 3, 7, 100]) {
            const { ids, pages } = await drain(L.store, [scopeOf(L)], {
              conditions: [],
              sort: { field, direction },
              limit,
            });
            assert.deepEqual(ids, expected, `limit ${limit}`);
            assert.equal(pages, Math.max(1, Math.ceil(expected.length / limit)));
          }
        });
      }
    }

    test("sortValue is the normalised sort value", async () => {
      const page = await L.store.listRecords([scopeOf(L)], {
        ...listAll,
        sort: { field: "sent_at", direction: "desc" },
        limit: 1,
      });
      assert.equal(page.records[0].sortValue, "2024-03-29T05:00:00.000Z");
      assert.equal(page.hasMore, true);
    });

    test("countExact counts every match regardless of limit", async () => {
      const result = await L.store.listRecords([scopeOf(L)], {
        ...listAll,
        conditions: [{ field: "labels", op: "eq", value: "inbox" }],
        limit: 2,
        countExact: true,
      });
      assert.equal(
        result.count,
        allMessages(L).filter((m) => (m.labels as string[]).includes("inbox")).length,
      );
      assert.equal(result.records.length, 2);
      const noCount = await L.store.listRecords([scopeOf(L)], { ...listAll, limit: 2 });
      assert.equal(noCount.count, undefined);
    });

    test("previewChars cuts text fields only, reporting size and digest", async () => {
      const long = `${"😀".repeat(10)}${"b".repeat(100)}`;
      await L.store.applyBatch(L.connA, "messages", [
        {
          op: "upsert",
          data: { message_id: "p1", subject: "x".repeat(50), body: long, sent_at: "2023-01-01T00:00:00Z" },
        },
      ]);
      const r = await L.store.getRecord(
        scopeOf(L),
        { connectionId: L.connA, recordId: "p1" },
        { previewChars: 12 },
      );
      assert.equal(r?.data.body, `${"😀".repeat(10)}bb`);
      assert.equal(r?.data.subject, "x".repeat(50));
      assert.equal(r?.previews?.body.sizeChars, 110);
      assert.equal(r?.previews?.body.complete, false);
      assert.match(r?.previews?.body.digest ?? "", /^sha256:[0-9a-f]{64}$/);
      const whole = await L.store.getRecord(
        scopeOf(L),
        { connectionId: L.connA, recordId: "p1" },
        { previewChars: 500 },
      );
      assert.equal(whole?.data.body, long);
      assert.equal(whole?.previews, undefined);
      const listed = await L.store.listRecords([scopeOf(L)], {
        ...listAll,
        conditions: [{ field: "sent_at", op: "lt", value: "2023-06-01T00:00:00Z" }],
        previewChars: 3,
      });
      assert.equal(listed.records.length, 1);
      assert.equal(listed.records[0].recordId, "p1");
      assert.equal(listed.records[0].data.body, "😀😀😀");
      await L.store.applyBatch(L.connA, "messages", [{ op: "delete", data: { message_id: "p1" } }]);
    });
  });
}
