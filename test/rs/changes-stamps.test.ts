// RS HTTP: an update that changes only fields a grant cannot see is invisible to that grant (issue
// 8, 10-data-model.md "Noninterference"): every read, changes_since pages and bookmark follow-ups
// included, stays byte-identical; an update of a granted field shows, with its own emitted_at.
// Hidden here: secret_note (a text field, stored in chunks) and sender.name (a nested path).
import assert from "node:assert/strict";
import { after, before, describe, it, mock } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { type Fixture, ndjson, openFixture } from "./harness.js";

const T0 = Date.parse("2026-03-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

for (const backend of testBackends()) {
  describe(`rs changes_since under hidden-field updates (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    let token: string;
    before(async () => {
      mock.timers.enable({ apis: ["Date"], now: T0 });
      ({ fx, cleanup } = await openFixture(backend));
      ({ token } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["subject", "from", "body", "sender.email", "sent_at"],
        },
      ]));
    });
    after(async () => {
      mock.timers.reset();
      await cleanup();
    });

    const get = async (path: string, as: string | undefined = token) => {
      const r = await fx.call(path, { token: as });
      assert.equal(r.status, 200, r.text);
      return r;
    };
    /** The stored record as the owner sees it, changed by `change`, upserted at `minute`. */
    const update = async (index: number, minute: number, change: (d: Record<string, unknown>) => void) => {
      const id = encodeURIComponent(`<a${index}%2Fx@mail.example>`);
      const owned = await get(`/v1/streams/messages/records/${id}?connection_id=${fx.mailA}`, fx.owner);
      const data = structuredClone(owned.json.data) as Record<string, unknown>;
      change(data);
      mock.timers.setTime(Date.parse(at(minute)));
      const r = await fx.call(`/v1/owner/connections/${fx.mailA}/streams/messages/records`, {
        method: "POST",
        body: ndjson([data]),
      });
      assert.equal(r.status, 200, r.text);
      return r.json;
    };
    /** Every page of the grant's changes feed from `mark`, as answered (and the last bookmark). */
    const feed = async (mark: string) => {
      const pages: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await get(`/v1/streams/messages/records?changes_since=${mark}&limit=5`);
        pages.push(r.text);
        mark = r.json.next_changes_since;
        if (!r.json.has_more) break;
      }
      return { pages, last: mark };
    };
    const reads = async (marks: string[]) => {
      const out: string[] = [];
      out.push((await get("/v1/streams/messages/records?limit=100")).text);
      out.push((await get("/v1/streams/messages/records?limit=100&sort=-sent_at")).text);
      out.push((await get("/v1/search?q=quarterly&limit=100")).text);
      out.push((await get("/v1/search?q=budget&streams=messages&limit=3")).text);
      for (const mark of marks) out.push(...(await feed(mark)).pages);
      const list = await get("/v1/streams/messages/records?limit=100");
      for (const r of list.json.data as { record_id: string }[])
        out.push((await get(`/v1/streams/messages/records/${encodeURIComponent(r.record_id)}`)).text);
      return out;
    };

    it("a hidden-only update changes no byte of the grant's answers; a granted one shows", async () => {
      const first = await get("/v1/streams/messages/records?changes_since=beginning&limit=5");
      const mid: string = first.json.next_changes_since;
      const whole = await feed("beginning");
      const end = whole.last;
      const marks = ["beginning", mid, end];
      const baseline = await reads(marks);

      // Hidden only: a text field, a nested path under a granted parent, and both at once.
      const a3 = await update(3, 10, (d) => {
        d.secret_note = "rewritten note";
        (d.sender as Record<string, unknown>).name = "Someone Else";
      });
      assert.equal(a3.updated, 1);
      await update(5, 11, (d) => {
        d.secret_note = "another";
      });
      await update(7, 12, (d) => {
        (d.sender as Record<string, unknown>).name = "Z";
      });
      assert.deepEqual(await reads(marks), baseline);
      // The owner (every field) does see the writes.
      const owner = await get(
        `/v1/streams/messages/records?changes_since=beginning&limit=100&connection_id=${fx.mailA}`,
        fx.owner,
      );
      const ownerTimes = (owner.json.data as { emitted_at: string }[]).map((r) => r.emitted_at).slice(-3);
      assert.deepEqual(ownerTimes, [at(10), at(11), at(12)]);

      // Granted fields: a top-level one and a nested one; each shows with its own emitted_at.
      await update(3, 20, (d) => {
        d.subject = "changed subject";
      });
      await update(7, 21, (d) => {
        (d.sender as Record<string, unknown>).email = "carol@example.com";
      });
      const seen = await get(`/v1/streams/messages/records?changes_since=${end}&limit=100`);
      assert.deepEqual(
        (seen.json.data as { record_id: string; emitted_at: string }[]).map((r) => [
          r.record_id,
          r.emitted_at,
        ]),
        [
          ["<a3%2Fx@mail.example>", at(20)],
          ["<a7%2Fx@mail.example>", at(21)],
        ],
      );
      const next: string = seen.json.next_changes_since;
      // A later hidden-only update of a visible-changed record moves nothing again.
      const beforeHidden = await reads([next, end]);
      await update(3, 30, (d) => {
        d.secret_note = "third";
      });
      assert.deepEqual(await reads([next, end]), beforeHidden);
      const one = await get(`/v1/streams/messages/records/${encodeURIComponent("<a3%2Fx@mail.example>")}`);
      assert.equal(one.json.emitted_at, at(20));
      assert.equal(one.json.data.subject, "changed subject");
      // A grant of the whole sender object sees the sender.name change; one without sender does not.
      const { token: senderGrant } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["sender"] },
      ]);
      const { token: subjectGrant } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["subject"] },
      ]);
      const a7 = `/v1/streams/messages/records/${encodeURIComponent("<a7%2Fx@mail.example>")}`;
      const a5 = `/v1/streams/messages/records/${encodeURIComponent("<a5%2Fx@mail.example>")}`;
      assert.equal((await get(a7, senderGrant)).json.emitted_at, at(21));
      assert.equal(
        (await get(a5, senderGrant)).json.emitted_at,
        (await get(a5, subjectGrant)).json.emitted_at,
      );
      assert.notEqual(
        (await get(`${a5}?connection_id=${fx.mailA}`, fx.owner)).json.emitted_at,
        (await get(a5, subjectGrant)).json.emitted_at,
      );
      // Deletion and recreation are visible to every grant (a new base).
      mock.timers.setTime(Date.parse(at(40)));
      const del = await fx.call(`/v1/owner/connections/${fx.mailA}/streams/messages/records`, {
        method: "POST",
        body: ndjson([{ message_id: "<a5/x@mail.example>" }], "delete"),
      });
      assert.equal(del.json.deleted, 1);
      const gone = await get(`/v1/streams/messages/records?changes_since=${next}&limit=100`, token);
      assert.deepEqual(
        (gone.json.data as { record_id: string; emitted_at: string; deleted?: boolean }[]).map((r) => [
          r.record_id,
          r.emitted_at,
          r.deleted ?? false,
        ]),
        [["<a5%2Fx@mail.example>", at(40), true]],
      );
    });
  });
}
