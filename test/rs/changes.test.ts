// RS HTTP: changes_since — upserts and tombstones in version order, bookmark paging and the
// parameters it refuses — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, ndjson, openFixture } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs changes_since (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("returns upserts and tombstones in version order with changes_since", async () => {
      const start = await fx.call(
        `/v1/streams/messages/records?changes_since=beginning&connection_id=${fx.chat}&limit=100`,
      );
      assert.equal(start.status, 200, start.text);
      assert.deepEqual(
        start.json.data.map((r: { record_id: string }) => r.record_id),
        ["c0", "c1", "c2", "c3", "c4", "c5"],
      );
      const bookmark: string = start.json.next_changes_since;
      assert.ok(bookmark);
      assert.equal(start.json.next_cursor, null);
      // Paging through changes follows next_changes_since alone.
      const pagedIds: string[] = [];
      let mark = "beginning";
      for (let page = 0; page < 10; page++) {
        const r = await fx.call(
          `/v1/streams/messages/records?changes_since=${mark}&connection_id=${fx.chat}&limit=4`,
        );
        assert.equal(r.status, 200, r.text);
        pagedIds.push(...r.json.data.map((x: { record_id: string }) => x.record_id));
        mark = r.json.next_changes_since;
        if (!r.json.has_more) break;
      }
      assert.deepEqual(pagedIds, ["c0", "c1", "c2", "c3", "c4", "c5"]);
      const quiet = await fx.call(
        `/v1/streams/messages/records?changes_since=${bookmark}&connection_id=${fx.chat}`,
      );
      assert.deepEqual(quiet.json.data, []);
      const del = await fx.call(`/v1/owner/connections/${fx.chat}/streams/messages/records`, {
        method: "POST",
        body: `${ndjson([{ id: "c2" }], "delete")}\n${ndjson([{ id: "c7", conversation_id: "conv1", role: "user", text: "new", sent_at: "2024-08-01T00:00:00Z" }])}`,
      });
      assert.equal(del.json.deleted, 1);
      assert.equal(del.json.added, 1);
      const changes = await fx.call(
        `/v1/streams/messages/records?changes_since=${bookmark}&connection_id=${fx.chat}`,
      );
      assert.deepEqual(
        changes.json.data.map((r: { record_id: string; deleted?: boolean }) => [
          r.record_id,
          r.deleted ?? false,
        ]),
        [
          ["c2", true],
          ["c7", false],
        ],
      );
      assert.deepEqual(changes.json.data[0].data, { id: "c2" });
      assertError(
        await fx.call(`/v1/streams/messages/records?changes_since=${bookmark}`),
        400,
        "invalid_cursor",
      );
      assertError(
        await fx.call("/v1/streams/messages/records?changes_since=beginning&sort=sent_at"),
        400,
        "unsupported_query",
      );
      assertError(
        await fx.call("/v1/streams/messages/records?changes_since=beginning&filter[role]=user"),
        400,
        "unsupported_query",
      );
      assertError(await fx.call("/v1/streams/messages/records?changes_since=bogus"), 400, "invalid_cursor");
    });
  });
}
