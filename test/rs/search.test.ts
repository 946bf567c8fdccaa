// RS HTTP: search — grammar, streams, merged paging, deterministic ties, recall, filters and grants
// — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture, SENTINEL } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs search (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("searches across connections with self-contained ids, titles and marked snippets", async () => {
      const r = await fx.call("/v1/search?q=quarterly");
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.object, "list");
      assert.equal(r.json.data.length, 10);
      assert.equal(r.json.has_more, true);
      assert.deepEqual(r.json.meta.recall, { complete: true, ranking_scope: "all_matches" });
      const ids = new Set<string>();
      let cursor: string | null = null;
      do {
        const page = await fx.call(`/v1/search?q=quarterly&limit=7${cursor ? `&cursor=${cursor}` : ""}`);
        assert.equal(page.status, 200, page.text);
        for (const hit of page.json.data) {
          assert.equal(hit.id, `${hit.connection_id}/${hit.stream}:${hit.record_id}`);
          ids.add(hit.id);
        }
        cursor = page.json.next_cursor;
      } while (cursor);
      assert.equal(ids.size, 27);
      const mail = r.json.data.find((h: { connector_key: string }) => h.connector_key === "mail");
      assert.match(mail.title, /^[ab] subject \d+ quarterly report$/);
      assert.match(mail.snippet.text, /<mark>quarterly<\/mark>/i);
      const chat = await fx.call(`/v1/search?q=budget&connection_id=${fx.chat}&limit=1`);
      assert.match(chat.json.data[0].title, /^Chat · messages · 2024-0\d-15T12:00:00.000Z$/);
      assert.equal(chat.json.data[0].display_name, "Chat");
      const contacts = await fx.call("/v1/search?q=alice&streams=contacts");
      assert.deepEqual(
        contacts.json.data.map((h: { record_id: string }) => h.record_id),
        ["alice@example.com"],
      );
    });

    it("ranks optional words, requires +words, matches phrases and prefixes, takes streams repeated", async () => {
      const ids = async (q: string, extra = "") => {
        const r = await fx.call(`/v1/search?q=${encodeURIComponent(q)}&limit=100${extra}`);
        assert.equal(r.status, 200, r.text);
        return r.json.data.map((h: { id: string }) => h.id).sort();
      };
      // a0 and b0 carry the long body (no "budget"); every other message says budget somewhere.
      assert.equal((await ids("+quarterly +budget")).length, 25);
      assert.equal((await ids("quarterly budget")).length, 27);
      assert.equal((await ids("quarterly")).length, 27);
      assert.equal((await ids('"quarterly report"')).length, 21);
      assert.equal((await ids('"report quarterly"')).length, 0);
      assert.deepEqual(await ids("quarter*"), await ids("quarterly"));
      assert.deepEqual(await ids("alic*", "&streams=contacts"), [`${fx.mailA}/contacts:alice@example.com`]);
      const both = await ids("alice", "&streams=messages&streams=contacts");
      assert.deepEqual(await ids("alice", "&streams=messages,contacts"), both);
      assert.ok(both.includes(`${fx.mailA}/contacts:alice@example.com`));
      assert.ok(both.some((id: string) => id.includes("/messages:")));
    });

    it("orders hits deterministically and pages exactly through ties", async () => {
      const one = await fx.call("/v1/search?q=quarterly&limit=100");
      const again = await fx.call("/v1/search?q=quarterly&limit=100");
      const order = one.json.data.map((h: { id: string }) => h.id);
      assert.deepEqual(
        again.json.data.map((h: { id: string }) => h.id),
        order,
      );
      for (let i = 1; i < one.json.data.length; i++) {
        assert.ok(one.json.data[i - 1].score >= one.json.data[i].score, "score never increases");
      }
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await fx.call(`/v1/search?q=quarterly&limit=4${cursor ? `&cursor=${cursor}` : ""}`);
        paged.push(...page.json.data.map((h: { id: string }) => h.id));
        cursor = page.json.next_cursor;
      } while (cursor);
      assert.deepEqual(paged, order);
      for (const hit of one.json.data) {
        if (!hit.snippet) continue;
        const opens = hit.snippet.text.split("<mark>").length - 1;
        assert.equal(opens, hit.snippet.text.split("</mark>").length - 1, hit.snippet.text);
        assert.ok(opens > 0, hit.snippet.text);
      }
    });

    it("says when recall is incomplete, exactly as specified", async () => {
      const { fx: small, cleanup: close } = await openFixture(backend, { searchRankWindow: 5 });
      try {
        const partial = await small.call("/v1/search?q=quarterly&limit=3");
        assert.equal(partial.status, 200, partial.text);
        const { matched_estimate, ...recall } = partial.json.meta.recall;
        assert.deepEqual(recall, {
          complete: false,
          ranking_scope: "candidate_window",
          candidate_window_limit: 5,
        });
        if (matched_estimate !== undefined) assert.equal(typeof matched_estimate, "number");
        assert.equal(partial.json.data.length, 3);
        const narrow = await small.call("/v1/search?q=alice&streams=contacts");
        assert.deepEqual(narrow.json.meta.recall, { complete: true, ranking_scope: "all_matches" });
      } finally {
        await close();
      }
    });

    it("takes filters only with exactly one stream and validates them", async () => {
      assertError(
        await fx.call("/v1/search?q=quarterly&filter[from]=alice@example.com"),
        400,
        "invalid_request",
      );
      assertError(
        await fx.call("/v1/search?q=quarterly&streams=messages&filter[from]=alice@example.com"),
        409,
        "ambiguous_stream",
      );
      const qualified = await fx.call(
        "/v1/search?q=quarterly&streams=mail:messages&filter[from]=alice@example.com",
      );
      assert.equal(qualified.status, 200, qualified.text);
      assert.ok(qualified.json.data.length > 0);
      for (const hit of qualified.json.data) assert.equal(hit.connector_key, "mail");
      const r = await fx.call(
        `/v1/search?q=quarterly&streams=messages&connection_id=${fx.mailB}&filter[from]=alice@example.com&limit=100`,
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.data.length, 5);
      assertError(await fx.call("/v1/search?q="), 400, "invalid_request");
      assertError(await fx.call("/v1/search?q=x&streams=nosuch"), 404, "stream_not_found");
      const noWords = await fx.call("/v1/search?q=***%20%22%22");
      assert.deepEqual(noWords.json.data, []);
      const first = await fx.call("/v1/search?q=quarterly&limit=2");
      assertError(
        await fx.call(`/v1/search?q=budget&limit=2&cursor=${first.json.next_cursor}`),
        400,
        "invalid_cursor",
      );
    });

    it("never matches or shows hidden fields, connections or out-of-range records", async () => {
      const { token } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["subject", "sent_at"],
          time_range: { since: "2024-06-01T00:00:00Z", until: null },
        },
      ]);
      const hidden = await fx.call(`/v1/search?q=${SENTINEL}`, { token });
      assert.equal(hidden.status, 200);
      assert.deepEqual(hidden.json.data, []);
      const r = await fx.call("/v1/search?q=quarterly&limit=100", { token });
      assert.equal(r.json.data.length, 7);
      for (const hit of r.json.data) {
        assert.equal(hit.connection_id, fx.mailA);
        assert.ok(hit.time >= "2024-06-01");
        assert.deepEqual(hit.matched_fields, ["subject"]);
        assert.equal(hit.snippet?.field ?? "subject", "subject");
      }
      assert.ok(!r.text.includes(SENTINEL));
      assertError(
        await fx.call(`/v1/search?q=quarterly&connection_id=${fx.chat}`, { token }),
        404,
        "connection_not_found",
      );
    });
  });
}
