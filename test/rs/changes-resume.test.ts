// RS HTTP: following a changes_since bookmark resumes exactly (issue 20 item 11), per backend. The
// issue's reproductions: read a stream written in one batch (one emitted_at) to the end, then
// delete, update or hide the last record read, or delete its connection, and follow the bookmark:
// exactly the changes made since come back, never the stream again. Also a record rewritten in the
// same millisecond with the same visible data (a bookmark that named the record by what the client
// saw would resume after its new version and skip what lay between).
import assert from "node:assert/strict";
import { after, before, describe, it, mock } from "node:test";
import { fingerprint, signCursor } from "../../src/core/cursor.js";
import { testBackends } from "../helpers/backends.js";
import { type Harness, openHarness } from "../reliability/fixtures/harness.js";
import { manifest } from "../reliability/fixtures/sync-model.js";

const T0 = Date.parse("2026-05-01T00:00:00Z");

const note = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `n${String(i).padStart(3, "0")}`,
  title: `title ${i}`,
  secret: `secret ${i}`,
  at: "2025-01-01T00:00:00.000Z",
  ...extra,
});

for (const backend of testBackends()) {
  describe(`rs changes_since resumes exactly (${backend.name})`, () => {
    let h: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      mock.timers.enable({ apis: ["Date"], now: T0 });
      const opened = await backend.open();
      cleanup = opened.cleanup;
      h = await openHarness(opened.store);
      // One stream `notes` (id, title, body, secret, meta, at: its time field).
      await h.registerManifest(manifest("notes"));
    });
    after(async () => {
      mock.timers.reset();
      await cleanup();
    });

    /** A fresh connection holding `n` notes written in one batch (one emitted_at). */
    const stream = async (n: number) => {
      const conn = await h.createConnection("notes", `c${Math.random()}`);
      await h.ingest(
        conn,
        "notes",
        Array.from({ length: n }, (_, i) => ({ op: "upsert", data: note(i) })),
      );
      return conn;
    };
    const grant = async (conn: string, extra: Record<string, unknown> = {}) =>
      (
        await h.createGrant({
          client_name: "sync",
          purpose: "resume",
          streams: [
            { stream: "notes", connector_key: "notes", connections: [conn], fields: "all", ...extra },
          ],
        })
      ).token;
    /** Every page from `mark` until has_more is false: the ids (tombstones marked) and the last bookmark. */
    const drain = async (token: string, mark: string, limit = 25) => {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await h.request(
          `/v1/streams/notes/records?changes_since=${encodeURIComponent(mark)}&limit=${limit}`,
          { token },
        );
        assert.equal(r.status, 200, r.text);
        for (const rec of r.json.data) ids.push(rec.deleted ? `-${rec.record_id}` : rec.record_id);
        mark = r.json.next_changes_since;
        if (!r.json.has_more) return { ids, mark };
      }
      throw new Error("the feed never ended");
    };
    const write = (conn: string, lines: unknown[]) => h.ingest(conn, "notes", lines);

    it("deleting the last record read: only its tombstone follows", async () => {
      const conn = await stream(100);
      const token = await grant(conn);
      const read = await drain(token, "beginning");
      assert.equal(read.ids.length, 100);
      assert.equal(read.ids.at(-1), "n099");
      await write(conn, [{ op: "delete", data: { id: "n099" } }]);
      assert.deepEqual((await drain(token, read.mark)).ids, ["-n099"]);
    });

    it("updating the last record read, in the same millisecond: only it follows", async () => {
      const conn = await stream(100);
      const token = await grant(conn);
      const read = await drain(token, "beginning", 100);
      await write(conn, [{ op: "upsert", data: note(99, { title: "edited" }) }]);
      const next = await drain(token, read.mark);
      assert.deepEqual(next.ids, ["n099"]);
      assert.deepEqual((await drain(token, next.mark)).ids, []);
    });

    it("the last record read leaving the time range, then its connection deleted: nothing replays", async () => {
      const other = await stream(3);
      const conn = await stream(40);
      const token = (
        await h.createGrant({
          client_name: "sync",
          purpose: "resume",
          streams: [
            {
              stream: "notes",
              connector_key: "notes",
              connections: [other, conn],
              fields: "all",
              time_range: { since: "2024-06-01T00:00:00Z", until: null },
            },
          ],
        })
      ).token;
      const read = await drain(token, "beginning", 7);
      assert.equal(read.ids.length, 43);
      assert.equal(read.ids.at(-1), "n039");
      await write(conn, [
        { op: "upsert", data: note(39, { at: "2020-01-01T00:00:00.000Z" }) },
        { op: "upsert", data: note(100) },
      ]);
      const next = await drain(token, read.mark);
      assert.deepEqual(next.ids, ["n100"]);
      // Back into the range: a visible change again.
      await write(conn, [{ op: "upsert", data: note(39, { at: "2025-02-01T00:00:00.000Z" }) }]);
      const back = await drain(token, next.mark);
      assert.deepEqual(back.ids, ["n039"]);
      assert.equal((await h.request(`/v1/owner/connections/${conn}`, { method: "DELETE" })).status, 200);
      assert.deepEqual((await drain(token, back.mark)).ids, []);
      await write(other, [{ op: "upsert", data: note(1, { title: "later" }) }]);
      assert.deepEqual((await drain(token, back.mark)).ids, ["n001"]);
    });

    it("a page boundary inside a batch, then the anchor rewritten to the same value: the rest of the batch, then it", async () => {
      const conn = await stream(6);
      const token = await grant(conn);
      const first = await h.request("/v1/streams/notes/records?changes_since=beginning&limit=2", { token });
      assert.deepEqual(
        first.json.data.map((r: { record_id: string }) => r.record_id),
        ["n000", "n001"],
      );
      // Same millisecond: n001 changes and changes back (same emitted_at, same visible data).
      await write(conn, [{ op: "upsert", data: note(1, { title: "other" }) }]);
      await write(conn, [{ op: "upsert", data: note(1) }]);
      assert.deepEqual((await drain(token, first.json.next_changes_since, 3)).ids, [
        "n002",
        "n003",
        "n004",
        "n005",
        "n001",
      ]);
    });

    it("a projected grant: an update of a hidden field of the anchor moves nothing, a visible one follows", async () => {
      const conn = await stream(30);
      const token = await grant(conn);
      const projected = (
        await h.createGrant({
          client_name: "sync",
          purpose: "resume",
          streams: [{ stream: "notes", connector_key: "notes", connections: [conn], fields: ["title"] }],
        })
      ).token;
      const read = await drain(projected, "beginning", 30);
      const all = await drain(token, "beginning", 30);
      await write(conn, [{ op: "upsert", data: note(29, { secret: "changed" }) }]);
      assert.deepEqual((await drain(projected, read.mark)).ids, []);
      assert.deepEqual((await drain(token, all.mark)).ids, ["n029"]);
      await write(conn, [{ op: "delete", data: { id: "n028" } }]);
      assert.deepEqual((await drain(projected, read.mark)).ids, ["-n028"]);
    });

    it("an old-format bookmark (the last record as seen) resumes at least once: its batch again, then exactly", async () => {
      const conn = await h.createConnection("notes", "legacy");
      await write(
        conn,
        Array.from({ length: 50 }, (_, i) => ({ op: "upsert", data: note(i) })),
      );
      const second = T0 + 60_000;
      mock.timers.setTime(second);
      await write(
        conn,
        Array.from({ length: 50 }, (_, i) => ({ op: "upsert", data: note(50 + i) })),
      );
      const { grantId, token } = await h.createGrant({
        client_name: "sync",
        purpose: "resume",
        streams: [{ stream: "notes", connector_key: "notes", connections: [conn], fields: "all" }],
      });
      const secret = await h.store.secret("cursor-hmac");
      const f = fingerprint({ s: "notes", c: null, g: grantId });
      const old = (a: unknown) => signCursor(secret, { k: "chg", f, a });
      const at = new Date(second).toISOString();
      await write(conn, [{ op: "delete", data: { id: "n099" } }]);
      const resumed = await drain(token, old([conn, "n099", at, false]));
      assert.deepEqual(resumed.ids, [
        ...Array.from({ length: 49 }, (_, i) => `n${String(50 + i).padStart(3, "0")}`),
        "-n099",
      ]);
      assert.deepEqual((await drain(token, resumed.mark)).ids, []);
      // An old bookmark of an empty feed starts at the beginning.
      assert.equal((await drain(token, old(null))).ids.length, 100);
      for (const bad of [[conn, "n099", at], [conn, "n099", 5, false], "x"]) {
        const r = await h.request(`/v1/streams/notes/records?changes_since=${encodeURIComponent(old(bad))}`, {
          token,
        });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.error.code, "invalid_cursor");
      }
    });
  });
}
