// RS HTTP: aggregate (metrics, grouping, time buckets, validation) and search (hits, paging,
// filters, recall, grants) — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture, SENTINEL } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs aggregate and search (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("counts and sums, fanning in over connections", async () => {
      const count = await fx.call("/v1/streams/messages/aggregate?metric=count");
      assert.equal(count.status, 200, count.text);
      assert.deepEqual(count.json, {
        object: "aggregate",
        stream: "messages",
        metric: "count",
        value: 27,
        filtered_record_count: 27,
        meta: { warnings: [] },
      });
      const sum = await fx.call(
        `/v1/streams/messages/aggregate?metric=sum&field=size_bytes&connection_id=${fx.mailA}`,
      );
      assert.equal(sum.json.value, 7800);
      assertError(
        await fx.call("/v1/streams/messages/aggregate?metric=sum&field=size_bytes"),
        400,
        "invalid_request",
      );
    });

    it("answers min, max, count_distinct and count of a field, each with its field echoed", async () => {
      const on = `connection_id=${fx.mailA}`;
      const get = async (qs: string) => {
        const r = await fx.call(`/v1/streams/messages/aggregate?${qs}&${on}`);
        assert.equal(r.status, 200, r.text);
        return r.json;
      };
      assert.deepEqual(await get("metric=min&field=size_bytes"), {
        object: "aggregate",
        stream: "messages",
        metric: "min",
        field: "size_bytes",
        value: 100,
        filtered_record_count: 12,
        meta: { warnings: [] },
      });
      assert.equal((await get("metric=max&field=size_bytes")).value, 1200);
      assert.equal((await get("metric=min&field=sent_at")).value, "2024-01-15T12:00:00.000Z");
      assert.equal((await get("metric=max&field=sent_at")).value, "2024-12-15T12:00:00.000Z");
      assert.equal((await get("metric=count_distinct&field=thread_id")).value, 3);
      assert.equal((await get("metric=count_distinct&field=from")).value, 2);
      const counted = await get("metric=count&field=subject&filter[from]=bob@example.com");
      assert.equal(counted.value, 6);
      assert.equal(counted.filtered_record_count, 6);
      const clamped = await get("metric=count&group_by=from&limit=500");
      assert.deepEqual(clamped.meta.warnings, [
        { code: "limit_clamped", message: "limit was clamped to 100.", requested: 500, applied: 100 },
      ]);
    });

    it("buckets time in the IANA zone given and echoes its canonical name", async () => {
      const day = (zone: string) =>
        fx.call(
          `/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=day&limit=1&connection_id=${fx.mailA}${zone}`,
        );
      const utc = await day("");
      assert.deepEqual(utc.json.groups, [{ key: "2024-12-15", value: 1 }]);
      // Noon UTC is 02:00 the next day at UTC+14.
      const kiritimati = await day("&time_zone=pacific/kiritimati");
      assert.equal(kiritimati.status, 200, kiritimati.text);
      assert.deepEqual(kiritimati.json.groups, [{ key: "2024-12-16", value: 1 }]);
      assert.equal(kiritimati.json.effective_time_zone, "Pacific/Kiritimati");
      assert.equal(kiritimati.json.group_count, 12);
      assert.equal(kiritimati.json.other_count, 11);
    });

    it("groups by field and by time bucket in a time zone", async () => {
      const byFrom = await fx.call(
        `/v1/streams/messages/aggregate?metric=count&group_by=from&connection_id=${fx.mailA}&filter[size_bytes][gte]=300`,
      );
      assert.equal(byFrom.status, 200, byFrom.text);
      assert.deepEqual(byFrom.json.groups, [
        { key: "alice@example.com", value: 5 },
        { key: "bob@example.com", value: 5 },
      ]);
      assert.equal(byFrom.json.group_count, 2);
      assert.equal(byFrom.json.other_count, 0);
      assert.equal(byFrom.json.filtered_record_count, 10);
      const months = await fx.call(
        `/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=month&limit=3&connection_id=${fx.mailA}`,
      );
      assert.equal(months.status, 200, months.text);
      assert.equal(months.json.groups.length, 3);
      assert.equal(months.json.group_count, 12);
      assert.equal(months.json.other_count, 9);
      assert.equal(months.json.effective_time_zone, "UTC");
      const keys = months.json.groups.map((g: { key: string }) => g.key);
      assert.deepEqual(keys, [...keys].sort());
      assert.match(keys[2], /2024-12/);
      const paris = await fx.call(
        `/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=year&time_zone=Europe/Paris`,
      );
      assert.equal(paris.json.effective_time_zone, "Europe/Paris");
      assert.equal(paris.json.groups.length, 1);
      assert.equal(paris.json.groups[0].value, 27);
    });

    it("validates metric, field, grouping, granularity and time zone", async () => {
      const cases: [string, string][] = [
        ["", "metric"],
        ["metric=median", "metric"],
        ["metric=sum", "field"],
        ["metric=sum&field=from", "field"],
        ["metric=count&group_by=subject", "group_by"],
        ["metric=count&group_by=from&group_by_time=sent_at&granularity=day", "group_by"],
        ["metric=count&granularity=day", "granularity"],
        ["metric=count&group_by_time=sent_at", "granularity"],
        ["metric=count&group_by_time=sent_at&granularity=fortnight", "granularity"],
        ["metric=count&group_by_time=sent_at&granularity=day&time_zone=Mars/Base", "time_zone"],
        ["metric=count&limit=0", "limit"],
      ];
      for (const [qs, param] of cases) {
        const r = await fx.call(`/v1/streams/messages/aggregate?${qs}&connection_id=${fx.mailA}`);
        assertError(r, 400, "invalid_request");
        assert.equal(r.json.error.param, param, qs);
      }
    });

    it("aggregates only what the grant allows", async () => {
      const { token } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["subject", "sent_at"],
          time_range: { since: "2024-06-01T00:00:00Z", until: "2024-09-01T00:00:00Z" },
        },
      ]);
      const count = await fx.call("/v1/streams/messages/aggregate?metric=count", { token });
      assert.equal(count.json.value, 3);
      assertError(
        await fx.call("/v1/streams/messages/aggregate?metric=count&group_by=from", { token }),
        403,
        "field_not_granted",
      );
      const secret = await fx.call("/v1/streams/messages/aggregate?metric=count&group_by=secret_note", {
        token,
      });
      assertError(secret, 403, "field_not_granted");
      assert.ok(!secret.text.includes(SENTINEL));
      assertError(
        await fx.call("/v1/streams/contacts/aggregate?metric=count", { token }),
        404,
        "stream_not_found",
      );
    });

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

    it("ANDs words, matches phrases and prefixes, and takes streams repeated", async () => {
      const ids = async (q: string, extra = "") => {
        const r = await fx.call(`/v1/search?q=${encodeURIComponent(q)}&limit=100${extra}`);
        assert.equal(r.status, 200, r.text);
        return r.json.data.map((h: { id: string }) => h.id).sort();
      };
      // a0 and b0 carry the long body (no "budget"); every other message says budget somewhere.
      assert.equal((await ids("quarterly budget")).length, 25);
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
        400,
        "invalid_filter",
      );
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
