// RS HTTP: ambiguous_connection lists at most 12 connections from grant metadata, with counts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertError, type Fixture, openFixture } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs ambiguity (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
      for (let i = 0; i < 11; i++) {
        const r = await fx.call("/v1/owner/connections", {
          method: "POST",
          body: JSON.stringify({ connector_key: "mail", display_name: `Extra ${i}` }),
        });
        assert.equal(r.status, 201);
      }
    });
    after(async () => cleanup());

    it("truncates available_connections to 12 and reports the full count", async () => {
      const r = await fx.call("/v1/streams/messages/records/x/field-window?field=body");
      assertError(r, 409, "ambiguous_connection");
      assert.equal(r.json.error.available_connection_count, 14);
      assert.equal(r.json.error.available_connections.length, 12);
      assert.equal(r.json.error.available_connections_truncated, true);
      assert.equal(r.json.error.retry_with, "connection_id");
    });

    it("answers a grant's ambiguity with its grant_id and only its connections", async () => {
      const { token, grant_id } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: [fx.mailA, fx.mailB], fields: ["subject"] },
      ]);
      const r = await fx.call("/v1/streams/messages/records/x", { token });
      assertError(r, 409, "ambiguous_connection");
      assert.deepEqual(
        r.json.error.available_connections.sort(
          (a: { connection_id: string }, b: { connection_id: string }) =>
            a.connection_id.localeCompare(b.connection_id),
        ),
        [
          { connection_id: fx.mailA, connector_key: "mail", display_name: "Work mail", grant_id },
          { connection_id: fx.mailB, connector_key: "mail", display_name: "Home mail", grant_id },
        ].sort((a, b) => a.connection_id.localeCompare(b.connection_id)),
      );
      assert.equal(r.json.error.available_connections_truncated, false);
    });
  });
}
