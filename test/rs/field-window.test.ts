// RS HTTP: field windows — selector rules, defaults, code-point offsets, signed cursors, stale
// cursors after a change, q windows, non-text fields and grants — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeRecordId, sha256Digest } from "../../src/core/ids.js";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, LONG_BODY_CHARS, longBody, ndjson, openFixture } from "./harness.js";

const rid = (id: string) => encodeURIComponent(encodeRecordId([id]));

for (const backend of testBackends()) {
  describe(`rs field windows (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    let base: string;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
      base = `/v1/streams/messages/records/${rid("<a0/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body`;
    });
    after(async () => cleanup());

    it("reads the first 4096 code points by default, then follows next_cursor to the end exactly", async () => {
      const first = await fx.call(base);
      assert.equal(first.status, 200, first.text);
      const { record, field, window } = first.json;
      assert.deepEqual(record, {
        id: `${fx.mailA}/messages:${encodeRecordId(["<a0/x@mail.example>"])}`,
        connection_id: fx.mailA,
        stream: "messages",
        record_id: encodeRecordId(["<a0/x@mail.example>"]),
      });
      assert.equal(field.path, "body");
      assert.equal(field.size_chars, LONG_BODY_CHARS);
      assert.equal(field.text_like, true);
      assert.match(field.digest, /^sha256:/);
      assert.equal(window.start_chars, 0);
      assert.equal(window.end_chars, 4096);
      assert.equal(window.limit_chars, 4096);
      assert.equal(window.complete, false);
      assert.equal(window.previous_cursor, null);
      assert.equal(window.match, null);
      let text = window.text;
      let cursor = window.next_cursor;
      let last = first.json;
      while (cursor) {
        const r = await fx.call(
          `/v1/streams/messages/records/${rid("<a0/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body&cursor=${cursor}`,
        );
        assert.equal(r.status, 200, r.text);
        text += r.json.window.text;
        cursor = r.json.window.next_cursor;
        last = r.json;
      }
      assert.equal(text, longBody());
      assert.equal(last.window.end_chars, LONG_BODY_CHARS);
      // Nothing is left after the last window (issue 20 item 7): complete, next_cursor null.
      assert.equal(last.window.complete, true);
      assert.equal(last.window.next_cursor, null);
      const back = await fx.call(
        `/v1/streams/messages/records/${rid("<a0/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body&cursor=${last.window.previous_cursor}`,
      );
      assert.equal(back.json.window.end_chars, last.window.start_chars);
    });

    it("reads offset windows in code points and marks a whole field complete", async () => {
      const r = await fx.call(`${base}&offset_chars=10&limit_chars=3`);
      assert.equal(r.json.window.text, "😀ab");
      assert.equal(r.json.window.start_chars, 10);
      assert.equal(r.json.window.end_chars, 13);
      assert.ok(r.json.window.previous_cursor);
      const whole = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body`,
      );
      assert.equal(whole.json.window.complete, true);
      assert.equal(whole.json.window.text, "Body of a 1. Budget planning notes.");
      assert.equal(whole.json.window.next_cursor, null);
      assertError(await fx.call(`${base}&offset_chars=999999`), 400, "invalid_request");
    });

    it("finds q case-insensitively with before/after context, or warns q_not_found", async () => {
      const r = await fx.call(`${base}&q=needle&before_chars=5&after_chars=7`);
      assert.equal(r.status, 200, r.text);
      const cps = [...longBody()];
      const at = cps.findIndex((_, i) => cps.slice(i, i + 6).join("") === "NEEDLE");
      assert.deepEqual(r.json.window.match, { q: "needle", start_chars: at, end_chars: at + 6 });
      assert.equal(r.json.window.start_chars, at - 5);
      assert.equal(r.json.window.end_chars, at + 13);
      assert.equal(r.json.window.text, cps.slice(at - 5, at + 13).join(""));
      const none = await fx.call(`${base}&q=absent%20word&before_chars=10&after_chars=10`);
      assert.equal(none.json.window.match, null);
      assert.equal(none.json.window.start_chars, 0);
      // No match: the window from 0 at the limit a match window would have had (10 + q + 10).
      assert.equal(none.json.window.end_chars, 31);
      assert.equal(none.json.window.limit_chars, 31);
      assert.deepEqual(
        none.json.meta.warnings.map((w: { code: string }) => w.code),
        ["q_not_found"],
      );
    });

    it("defaults before/after to 2,048 code points and pages back from a match window", async () => {
      const r = await fx.call(`${base}&q=NEEDLE`);
      assert.equal(r.status, 200, r.text);
      const at = r.json.window.match.start_chars;
      assert.equal(r.json.window.start_chars, at - 2048);
      // NEEDLE sits near the end: the window stops at the field's end.
      assert.equal(r.json.window.end_chars, Math.min(LONG_BODY_CHARS, at + 6 + 2048));
      assert.equal(r.json.window.next_cursor, null);
      // The limit applied: 2,048 before + the match + 2,048 after (the window never exceeds it).
      assert.equal(r.json.window.limit_chars, 4096 + 6);
      // The window reaches the field's end: nothing is left after it.
      assert.equal(r.json.window.complete, true);
      assert.deepEqual(r.json.meta.warnings, []);
      const back = await fx.call(`${base}&cursor=${r.json.window.previous_cursor}`);
      assert.equal(back.status, 200, back.text);
      assert.equal(back.json.window.end_chars, at - 2048);
      assert.equal(back.json.window.start_chars, at - 2048 - 4102);
      assert.equal(back.json.window.match, null);
    });

    it("enforces the selector rules, naming each", async () => {
      const cases: [string, string][] = [
        ["&cursor=x&offset_chars=1", "cursor"],
        ["&q=a&offset_chars=1", "offset_chars"],
        ["&before_chars=3", "before_chars"],
        ["&after_chars=3", "after_chars"],
        ["&limit_chars=16385", "limit_chars"],
        ["&q=a&before_chars=8193", "before_chars"],
        ["&offset_chars=-1", "offset_chars"],
        ["&cursor=x&q=a", "cursor"],
        ["&cursor=x&before_chars=10", "cursor"],
        ["&q=a&after_chars=8193", "after_chars"],
        ["&q=", "q"],
      ];
      for (const [qs, param] of cases) {
        const r = await fx.call(`${base}${qs}`);
        assertError(r, 400, "invalid_request");
        assert.equal(r.json.error.param, param, qs);
      }
      const noField = await fx.call(
        `/v1/streams/messages/records/${rid("<a0/x@mail.example>")}/field-window?connection_id=${fx.mailA}`,
      );
      assertError(noField, 400, "invalid_request");
      assert.equal(noField.json.error.param, "field");
      assertError(await fx.call(`${base}&cursor=forged.cursor`), 400, "invalid_cursor");
      const longQ = await fx.call(`${base}&q=${"a".repeat(1001)}`);
      assertError(longQ, 400, "limit_exceeded");
      assert.equal(longQ.json.error.param, "q");
      assert.match(longQ.json.error.message, /1000 characters/);
    });

    it("binds cursors to record and field; a changed field makes them stale", async () => {
      const first = await fx.call(
        `/v1/streams/messages/records/${rid("<a2/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body&limit_chars=5`,
      );
      const cursor = first.json.window.next_cursor;
      const other = await fx.call(
        `/v1/streams/messages/records/${rid("<a4/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body&cursor=${cursor}`,
      );
      assertError(other, 400, "invalid_cursor");
      const otherField = await fx.call(
        `/v1/streams/messages/records/${rid("<a2/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=secret_note&cursor=${cursor}`,
      );
      assertError(otherField, 400, "invalid_cursor");
      const otherConnectionSpelling = await fx.call(
        `/v1/streams/messages/records/${rid("<a2/x@mail.example>")}/field-window?connection_id=${fx.mailB}&field=body&cursor=${cursor}`,
      );
      // No record a2 on mailB: a bad cursor there answers exactly as the read without it (item 11).
      assertError(otherConnectionSpelling, 404, "record_not_found");
      assert.match(other.json.error.message, /\(cursor for field body of record cin_[0-9a-f]+\/messages:/);
      const upd = await fx.call(`/v1/owner/connections/${fx.mailA}/streams/messages/records`, {
        method: "POST",
        body: ndjson([
          {
            message_id: "<a2/x@mail.example>",
            subject: "changed",
            sent_at: "2024-03-15T12:00:00Z",
            body: "A different body now.",
          },
        ]),
      });
      assert.equal(upd.json.updated, 1);
      const stale = await fx.call(
        `/v1/streams/messages/records/${rid("<a2/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=body&cursor=${cursor}`,
      );
      assertError(stale, 409, "stale_cursor");
      assert.match(stale.json.error.message, /restart from offset 0/);
    });

    it("windows a number as JSON; answers ambiguity, unknown fields and grant limits", async () => {
      const num = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?connection_id=${fx.mailA}&field=size_bytes`,
      );
      // A non-text field windows as its canonical JSON (issue 9 item 3).
      assert.equal(num.status, 200, num.text);
      assert.deepEqual(num.json.field, {
        path: "size_bytes",
        text_like: false,
        mime_type: "application/json",
        size_chars: 3,
        digest: sha256Digest("200"),
      });
      assert.equal(num.json.window.text, "200");
      const amb = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?field=body`,
      );
      assertError(amb, 409, "ambiguous_connection");
      assertError(await fx.call(`${base.replace("field=body", "field=ghost")}`), 400, "invalid_request");
      const { token } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["subject", "body"] },
      ]);
      const ok = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?field=body`,
        { token },
      );
      assert.equal(ok.status, 200, ok.text);
      const denied = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?field=secret_note`,
        { token },
      );
      assertError(denied, 403, "field_not_granted");
      assertError(
        await fx.call(`/v1/streams/messages/records/nope/field-window?field=body`, { token }),
        404,
        "record_not_found",
      );
      const { token: recent } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["body"],
          time_range: { since: "2024-06-01T00:00:00Z", until: null },
        },
      ]);
      const outOfRange = await fx.call(
        `/v1/streams/messages/records/${rid("<a1/x@mail.example>")}/field-window?field=body`,
        { token: recent },
      );
      assertError(outOfRange, 404, "record_not_found");
      assert.ok(!outOfRange.text.includes("Budget"));
      const inRange = await fx.call(
        `/v1/streams/messages/records/${rid("<a6/x@mail.example>")}/field-window?field=body`,
        { token: recent },
      );
      assert.equal(inRange.json.window.text, "Body of a 6. Budget planning notes.");
      const ownerCursor = (await fx.call(`${base}&limit_chars=5`)).json.window.next_cursor;
      const foreign = await fx.call(
        `/v1/streams/messages/records/${rid("<a0/x@mail.example>")}/field-window?field=body&cursor=${ownerCursor}`,
        { token },
      );
      assertError(foreign, 400, "invalid_cursor");
    });
  });
}
