// RS HTTP: records list (fan-in, keyset paging, sort, filters, fields, counts, changes) and the
// single record (ambiguity, previews), with grant enforcement — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeRecordId } from "../../src/core/ids.js";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, LONG_BODY_CHARS, openFixture, SENTINEL } from "./harness.js";

const path = (rid: string) => encodeURIComponent(encodeRecordId([rid]));

for (const backend of testBackends()) {
  describe(`rs records (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("pages exactly across connections and connectors: nothing dropped, nothing repeated", async () => {
      const all = await fx.call("/v1/streams/messages/records?limit=100&count=exact");
      assert.equal(all.status, 200);
      assert.equal(all.json.object, "list");
      assert.equal(all.json.data.length, 27);
      assert.equal(all.json.meta.count, 27);
      assert.equal(all.json.has_more, false);
      assert.equal(all.json.next_cursor, null);
      const times = all.json.data.map((r: { time: string }) => r.time);
      assert.deepEqual(times, [...times].sort().reverse(), "default order is newest first");
      const paged: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await fx.call(`/v1/streams/messages/records?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
        assert.equal(r.status, 200, r.text);
        paged.push(...r.json.data.map((x: { id: string }) => x.id));
        cursor = r.json.next_cursor;
        assert.equal(r.json.has_more, cursor !== null);
        pages++;
      } while (cursor);
      assert.equal(pages, 7);
      assert.deepEqual(
        paged,
        all.json.data.map((x: { id: string }) => x.id),
      );
      const first = all.json.data.find((r: { connection_id: string }) => r.connection_id === fx.mailA);
      assert.equal(first.display_name, "Work mail");
      assert.equal(first.connector_key, "mail");
      assert.equal(first.id, `${fx.mailA}/messages:${first.record_id}`);
    });

    it("answers 25 records by default, with the list envelope and no warnings", async () => {
      const r = await fx.call("/v1/streams/messages/records");
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json).sort(), ["data", "has_more", "meta", "next_cursor", "object"]);
      assert.equal(r.json.data.length, 25);
      assert.equal(r.json.has_more, true);
      assert.equal(typeof r.json.next_cursor, "string");
      assert.deepEqual(r.json.meta, { warnings: [] });
    });

    it("pages ascending across connections with ties broken by connection then record id", async () => {
      const all = await fx.call("/v1/streams/messages/records?sort=sent_at&limit=100");
      assert.equal(all.status, 200, all.text);
      const rows: { time: string; connection_id: string; record_id: string; id: string }[] = all.json.data;
      assert.equal(rows.length, 27);
      const key = (r: (typeof rows)[0]) => [r.time, r.connection_id, r.record_id];
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [key(rows[i - 1]), key(rows[i])];
        const cmp = a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
        assert.ok(cmp, `row ${i} is out of order: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
      }
      // Three connections share the 15th of January..June at noon: ties straddle page boundaries.
      assert.equal(rows.filter((r) => r.time === "2024-01-15T12:00:00.000Z").length, 3);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await fx.call(
          `/v1/streams/messages/records?sort=sent_at&limit=5${cursor ? `&cursor=${cursor}` : ""}`,
        );
        assert.equal(r.status, 200, r.text);
        paged.push(...r.json.data.map((x: { id: string }) => x.id));
        cursor = r.json.next_cursor;
      } while (cursor);
      assert.deepEqual(
        paged,
        rows.map((r) => r.id),
      );
    });

    it("clamps limit with a warning and refuses a bad one", async () => {
      const r = await fx.call("/v1/streams/messages/records?limit=500");
      assert.equal(r.json.data.length, 27);
      assert.deepEqual(r.json.meta.warnings, [
        { code: "limit_clamped", message: "limit was clamped to 100.", requested: 500, applied: 100 },
      ]);
      assertError(await fx.call("/v1/streams/messages/records?limit=0"), 400, "invalid_request");
      assertError(await fx.call("/v1/streams/messages/records?limit=abc"), 400, "invalid_request");
    });

    it("validates sort against every connector of the stream", async () => {
      // size_bytes is a mail field, not a chat one: the bare shared name is ambiguous (30-mcp.md).
      const mixed = await fx.call("/v1/streams/messages/records?sort=-size_bytes");
      assertError(mixed, 409, "ambiguous_stream");
      assert.equal(mixed.json.error.retry_with, "stream");
      assert.deepEqual(mixed.json.error.available_streams, ["chat:messages", "mail:messages"]);
      assert.equal(mixed.json.error.conflicting_param, "sort");
      const qualified = await fx.call("/v1/streams/mail:messages/records?sort=-size_bytes&limit=2");
      assert.equal(qualified.status, 200, qualified.text);
      assert.deepEqual(
        qualified.json.data.map((r: { stream: string; connector_key: string }) => [
          r.stream,
          r.connector_key,
        ]),
        [
          ["messages", "mail"],
          ["messages", "mail"],
        ],
      );
      const one = await fx.call(
        `/v1/streams/messages/records?sort=-size_bytes&connection_id=${fx.mailA}&limit=3`,
      );
      assert.deepEqual(
        one.json.data.map((r: { data: { size_bytes: number } }) => r.data.size_bytes),
        [1200, 1100, 1000],
      );
      const asc = await fx.call(`/v1/streams/messages/records?sort=sent_at&limit=2&connection_id=${fx.chat}`);
      assert.deepEqual(
        asc.json.data.map((r: { record_id: string }) => r.record_id),
        ["c0", "c1"],
      );
      assertError(
        await fx.call(`/v1/streams/messages/records?sort=subject&connection_id=${fx.mailA}`),
        400,
        "invalid_request",
      );
    });

    it("filters with typed values and projects fields", async () => {
      const r = await fx.call(
        `/v1/streams/messages/records?connection_id=${fx.mailA}&filter[from]=alice@example.com&filter[size_bytes][gte]=500&fields=subject,from&fields=size_bytes&count=exact`,
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.meta.count, 4);
      for (const rec of r.json.data) {
        assert.deepEqual(Object.keys(rec.data).sort(), ["from", "message_id", "size_bytes", "subject"]);
        assert.equal(rec.data.from, "alice@example.com");
        assert.ok(rec.data.size_bytes >= 500);
      }
      const arr = await fx.call(
        `/v1/streams/messages/records?connection_id=${fx.mailB}&filter[labels]=work&count=exact`,
      );
      assert.equal(arr.json.meta.count, 3);
      const range = await fx.call(
        "/v1/streams/messages/records?filter[sent_at][gte]=2024-06-01&filter[sent_at][lt]=2024-07-01&count=exact",
      );
      assert.equal(range.json.meta.count, 3);
      assertError(await fx.call("/v1/streams/messages/records?filter[from]=x"), 409, "ambiguous_stream");
      assertError(await fx.call("/v1/streams/mail:messages/records?filter[nope]=x"), 400, "invalid_filter");
      assertError(await fx.call("/v1/streams/messages/records?fields=nope"), 400, "invalid_request");
    });

    it("rejects tampered, foreign and re-bound cursors", async () => {
      const page = await fx.call(`/v1/streams/messages/records?limit=2&connection_id=${fx.mailA}`);
      const cursor: string = page.json.next_cursor;
      assert.ok(cursor);
      const tampered = `${cursor.slice(0, -3)}${cursor.endsWith("A") ? "B" : "A"}xx`;
      assertError(
        await fx.call(`/v1/streams/messages/records?limit=2&connection_id=${fx.mailA}&cursor=${tampered}`),
        400,
        "invalid_cursor",
      );
      const rebound = await fx.call(
        `/v1/streams/messages/records?limit=2&connection_id=${fx.mailA}&filter[from]=bob@example.com&cursor=${cursor}`,
      );
      assertError(rebound, 400, "invalid_cursor");
      const { token } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
      ]);
      assertError(
        await fx.call(`/v1/streams/messages/records?limit=2&connection_id=${fx.mailA}&cursor=${cursor}`, {
          token,
        }),
        400,
        "invalid_cursor",
      );
      assertError(await fx.call("/v1/streams/messages/records?cursor=junk"), 400, "invalid_cursor");
    });

    it("enforces the grant: streams, connections, fields and time range", async () => {
      const { token } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["subject", "sent_at"],
          time_range: { since: "2024-06-01T00:00:00Z", until: null },
        },
      ]);
      const r = await fx.call("/v1/streams/messages/records?limit=100&count=exact", { token });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.meta.count, 7);
      for (const rec of r.json.data) {
        assert.equal(rec.connection_id, fx.mailA);
        assert.ok(rec.time >= "2024-06-01");
        assert.deepEqual(Object.keys(rec.data).sort(), ["message_id", "sent_at", "subject"]);
      }
      assert.ok(!r.text.includes(SENTINEL));
      for (const q of [
        "filter[secret_note]=x",
        "sort=-size_bytes",
        "fields=body",
        "fields=subject,secret_note",
      ]) {
        const denied = await fx.call(`/v1/streams/messages/records?${q}`, { token });
        assertError(denied, 403, "field_not_granted");
        assert.ok(!denied.text.includes("secret_note"), q);
      }
      assertError(await fx.call("/v1/streams/contacts/records", { token }), 404, "stream_not_found");
      assertError(await fx.call("/v1/streams/nosuch/records", { token }), 404, "stream_not_found");
      assertError(
        await fx.call(`/v1/streams/messages/records?connection_id=${fx.mailB}`, { token }),
        404,
        "connection_not_found",
      );
      assertError(
        await fx.call(`/v1/streams/messages/records?connection_id=${fx.chat}`, { token }),
        404,
        "connection_not_found",
      );
      const early = await fx.call(`/v1/streams/messages/records/${path("<a0/x@mail.example>")}`, { token });
      assertError(early, 404, "record_not_found");
      const visible = await fx.call(`/v1/streams/messages/records/${path("<a6/x@mail.example>")}`, { token });
      assert.equal(visible.status, 200, visible.text);
      assert.deepEqual(Object.keys(visible.json.data).sort(), ["message_id", "sent_at", "subject"]);
    });

    it("reads one record; a stream on several connections needs connection_id", async () => {
      const rid = encodeRecordId(["<a3/x@mail.example>"]);
      const amb = await fx.call(`/v1/streams/messages/records/${encodeURIComponent(rid)}`);
      assertError(amb, 409, "ambiguous_connection");
      assert.equal(amb.json.error.retry_with, "connection_id");
      assert.equal(amb.json.error.available_connection_count, 3);
      assert.equal(amb.json.error.available_connections_truncated, false);
      assert.deepEqual(
        amb.json.error.available_connections
          .map((c: { connection_id: string; grant_id: null }) => [c.connection_id, c.grant_id])
          .sort(),
        [fx.mailA, fx.mailB, fx.chat].map((c) => [c, null]).sort(),
      );
      assert.match(amb.json.error.hint, /schema/);
      const one = await fx.call(
        `/v1/streams/messages/records/${encodeURIComponent(rid)}?connection_id=${fx.mailA}&fields=subject`,
      );
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.json, {
        object: "record",
        id: `${fx.mailA}/messages:${rid}`,
        stream: "messages",
        record_id: rid,
        connection_id: fx.mailA,
        connector_key: "mail",
        display_name: "Work mail",
        emitted_at: one.json.emitted_at,
        time: "2024-04-15T12:00:00.000Z",
        data: { message_id: "<a3/x@mail.example>", subject: "a subject 3 quarterly report" },
      });
      assertError(
        await fx.call(`/v1/streams/messages/records/nope?connection_id=${fx.mailA}`),
        404,
        "record_not_found",
      );
      assertError(
        await fx.call(`/v1/streams/messages/records/..?connection_id=${fx.mailA}`),
        404,
        "route_not_found",
      );
      assertError(
        await fx.call(`/v1/streams/messages/records/a%2Fb?connection_id=${fx.mailA}`),
        400,
        "invalid_id",
      );
    });

    it("cuts text fields to preview_chars and describes them (pdpp extension)", async () => {
      const rid = path("<a0/x@mail.example>");
      const r = await fx.call(
        `/v1/streams/messages/records/${rid}?connection_id=${fx.mailA}&preview_chars=64`,
      );
      assert.equal(r.status, 200, r.text);
      assert.equal([...r.json.data.body].length, 64);
      assert.equal(r.json.data.subject, "a subject 0 quarterly report");
      assert.equal(r.json.field_previews.body.size_chars, LONG_BODY_CHARS);
      assert.equal(r.json.field_previews.body.complete, false);
      assert.match(r.json.field_previews.body.digest, /^sha256:[0-9a-f]{64}$/);
      const list = await fx.call(
        `/v1/streams/messages/records?connection_id=${fx.mailA}&preview_chars=64&limit=100`,
      );
      const cut = list.json.data.filter((x: { field_previews?: object }) => x.field_previews);
      assert.equal(cut.length, 1);
      assertError(await fx.call(`/v1/streams/messages/records?preview_chars=10`), 400, "invalid_request");
    });
  });
}
