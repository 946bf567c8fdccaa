// RS HTTP: GET /v1/schema — index with record counts, per-field capabilities with stream, the
// view=full rules and grant narrowing — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture, SENTINEL } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs schema (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("indexes every visible connector, connection and stream once, with record counts", async () => {
      const r = await fx.call("/v1/schema");
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.object, "schema");
      assert.equal(r.json.view, "compact");
      assert.deepEqual(r.json.bearer, { kind: "owner" });
      assert.deepEqual(
        r.json.connectors.map((c: { connector_key: string }) => c.connector_key),
        ["chat", "mail"],
      );
      const mail = r.json.connectors[1];
      assert.equal(mail.display_name, "Mail");
      assert.deepEqual(
        mail.connections,
        [
          { connection_id: fx.mailA, display_name: "Work mail" },
          { connection_id: fx.mailB, display_name: "Home mail" },
        ].sort((a, b) => a.connection_id.localeCompare(b.connection_id)),
      );
      assert.deepEqual(mail.streams[0], {
        name: "messages",
        qualified_name: "mail:messages",
        display_name: "Messages",
        primary_key: ["message_id"],
        cursor_field: "sent_at",
        time_field: "sent_at",
        title_field: "subject",
        record_counts: { [fx.mailA]: 12, [fx.mailB]: 9 },
      });
      assert.deepEqual(mail.streams[1].record_counts, { [fx.mailA]: 1, [fx.mailB]: 0 });
      // Each stream row appears once: under its connector, whatever number of connections.
      assert.deepEqual(
        r.json.connectors.map((c: { streams: { name: string }[] }) => c.streams.map((x) => x.name)),
        [["messages"], ["messages", "contacts"]],
      );
      assert.equal(
        r.json.connectors[1].streams[0].fields,
        undefined,
        "compact without stream has no field capabilities",
      );
    });

    it("adds per-field capabilities with stream, and view=full needs one connection", async () => {
      const r = await fx.call("/v1/schema?stream=messages");
      assert.equal(r.json.connectors.length, 2);
      const mailRow = r.json.connectors[1].streams[0];
      assert.deepEqual(mailRow.fields.size_bytes, {
        type: "integer",
        granted: true,
        exact_filter: false,
        range_filter: ["gte", "lte"],
        search: false,
        aggregations: ["sum", "min", "max"],
        text_like: false,
      });
      assert.equal(mailRow.schema, undefined);
      assert.equal(mailRow.fields.subject.description, undefined);
      const noStream = await fx.call("/v1/schema?view=full");
      assertError(noStream, 400, "invalid_request");
      assert.equal(noStream.json.error.param, "view");
      assert.match(noStream.json.error.message, /stream/);
      const amb = await fx.call("/v1/schema?view=full&stream=messages");
      assertError(amb, 409, "ambiguous_connection");
      assert.equal(amb.json.error.available_connection_count, 3);
      const full = await fx.call(`/v1/schema?view=full&stream=messages&connection_id=${fx.mailB}`);
      assert.equal(full.status, 200, full.text);
      assert.equal(full.json.connectors.length, 1);
      assert.deepEqual(full.json.connectors[0].connections, [
        { connection_id: fx.mailB, display_name: "Home mail" },
      ]);
      const row = full.json.connectors[0].streams[0];
      assert.equal(row.fields.subject.description, "The subject line.");
      assert.deepEqual(row.record_counts, { [fx.mailB]: 9 });
      assert.equal(row.schema.properties.body.type, "string");
      const single = await fx.call(`/v1/schema?view=full&stream=contacts&connection_id=${fx.mailA}`);
      assert.equal(single.status, 200, single.text);
      assertError(await fx.call("/v1/schema?stream=nosuch"), 404, "stream_not_found");
      assertError(await fx.call("/v1/schema?view=tiny"), 400, "invalid_request");
      assertError(await fx.call("/v1/schema?connection_id=bad"), 400, "invalid_request");
    });

    it("shows a grant only its streams, connections, counts in range and granted fields", async () => {
      const { token, grant_id } = await fx.grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailB],
          fields: ["subject", "sent_at"],
          time_range: { since: "2024-06-01T00:00:00Z", until: null },
        },
      ]);
      const r = await fx.call("/v1/schema", { token });
      assert.deepEqual(r.json.bearer, { kind: "client", grant_id });
      assert.equal(r.json.connectors.length, 1);
      assert.deepEqual(r.json.connectors[0].connections, [
        { connection_id: fx.mailB, display_name: "Home mail" },
      ]);
      assert.deepEqual(
        r.json.connectors[0].streams.map((s: { name: string }) => s.name),
        ["messages"],
      );
      assert.deepEqual(r.json.connectors[0].streams[0].record_counts, { [fx.mailB]: 4 });
      const full = await fx.call("/v1/schema?view=full&stream=messages", { token });
      assert.equal(full.status, 200, full.text);
      const row = full.json.connectors[0].streams[0];
      assert.equal(row.fields.secret_note.granted, false);
      assert.equal(row.fields.secret_note.search, false);
      assert.equal(row.fields.subject.granted, true);
      assert.deepEqual(Object.keys(row.schema.properties).sort(), ["message_id", "sent_at", "subject"]);
      assert.ok(!full.text.includes(SENTINEL));
      assertError(await fx.call("/v1/schema?stream=contacts", { token }), 404, "stream_not_found");
      assertError(
        await fx.call(`/v1/schema?connection_id=${fx.mailA}`, { token }),
        404,
        "connection_not_found",
      );
    });
  });
}
