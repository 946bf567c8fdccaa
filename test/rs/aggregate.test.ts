// RS HTTP: aggregate — every metric, grouping by field and time bucket in a zone, validation and
// grants — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture, SENTINEL } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs aggregate (${backend.name})`, () => {
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
        streams: ["chat:messages", "mail:messages"],
        meta: { warnings: [] },
      });
      const sum = await fx.call(
        `/v1/streams/messages/aggregate?metric=sum&field=size_bytes&connection_id=${fx.mailA}`,
      );
      assert.equal(sum.json.value, 7800);
      // A mail-only field on the bare shared name: ambiguous; the qualified name answers.
      const mixed = await fx.call("/v1/streams/messages/aggregate?metric=sum&field=size_bytes");
      assertError(mixed, 409, "ambiguous_stream");
      assert.deepEqual(mixed.json.error.available_streams, ["chat:messages", "mail:messages"]);
      const mail = await fx.call("/v1/streams/mail:messages/aggregate?metric=count");
      assert.equal(mail.status, 200, mail.text);
      assert.equal(mail.json.streams, undefined);
      assert.equal(mail.json.value, 21);
      assertError(
        await fx.call("/v1/streams/mail:messages/aggregate?metric=sum&field=nope"),
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
      const byDefault = await fx.call(
        `/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=month&connection_id=${fx.mailA}`,
      );
      assert.equal(byDefault.json.groups.length, 10, "10 groups by default");
      assert.equal(byDefault.json.other_count, 2);
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
  });
}
