// Typed argument errors before any RS call: filters, schema detail, selectors, unknown keys.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { buildWorld, SpyRsClient, type World } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

describe("tool argument errors", () => {
  let world: World;
  let spy: SpyRsClient;
  let client: Client;
  before(async () => {
    world = await buildWorld();
    spy = new SpyRsClient(world.rs());
    client = await world.client({ rs: spy });
  });
  after(() => world.close());

  async function expectCode(name: string, args: Record<string, unknown>, code: string, message?: RegExp) {
    spy.calls = [];
    const r = await call(client, name, args);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} succeeded`);
    assert.equal(errorOf(r).code, code, r.text);
    if (message) assert.match(r.text, message);
    assert.deepEqual(spy.calls, [], `${name} called the RS`);
  }

  test("typed filter: string, empty list, unknown op, bracketed field → invalid_filter", async () => {
    await expectCode("query_records", { stream: "messages", filter: "from=alice" }, "invalid_filter");
    await expectCode("query_records", { stream: "messages", filter: [] }, "invalid_filter");
    await expectCode(
      "query_records",
      { stream: "messages", filter: [{ field: "from", op: "ne", value: "x" }] },
      "invalid_filter",
    );
    await expectCode(
      "aggregate",
      { stream: "messages", metric: "count", filter: [{ field: "a[b]", op: "eq", value: "x" }] },
      "invalid_filter",
    );
    await expectCode(
      "search",
      { query: "x", filter: [{ field: "from", op: "eq", value: "x" }] },
      "invalid_filter",
    );
  });

  test('schema detail:"full" without stream → invalid_request naming the right call', async () => {
    await expectCode(
      "schema",
      { detail: "full" },
      "invalid_request",
      /schema\(stream, connection_id, detail:"full"\)/,
    );
  });

  test("full schema of a stream on two connections without connection_id → ambiguous_connection", async () => {
    const r = await call(client, "schema", { stream: "messages", detail: "full" });
    assert.equal(errorOf(r).code, "ambiguous_connection");
    assert.equal(errorOf(r).retry_with, "connection_id");
  });

  test("selector rules → invalid_field_window_selector naming the rule, zero RS calls", async () => {
    const id = `${world.work}/messages:long-1`;
    const base = { id, field_path: "body" };
    await expectCode(
      "read_record_field",
      { ...base, cursor: "abc.def", offset_chars: 3 },
      "invalid_field_window_selector",
      /cursor excludes/,
    );
    await expectCode(
      "read_record_field",
      { ...base, q: "x", offset_chars: 3 },
      "invalid_field_window_selector",
      /q excludes offset_chars/,
    );
    await expectCode(
      "read_record_field",
      { ...base, before_chars: 3 },
      "invalid_field_window_selector",
      /needs q/,
    );
    await expectCode("read_record_field", { ...base, limit_chars: 20_000 }, "invalid_request");
  });

  test("unknown keys are rejected (strict schemas)", async () => {
    await expectCode(
      "fetch",
      { id: `${world.work}/messages:long-1`, connector_instance_id: "x" },
      "invalid_request",
      /unknown argument/,
    );
  });

  test("fields narrow query_records and fetch: nothing unrequested anywhere", async () => {
    const q = await call(client, "query_records", {
      stream: "messages",
      connection_id: world.work,
      fields: ["subject"],
      limit: 2,
    });
    const records = (q.structured.data as { data: Record<string, unknown>[] }).data;
    for (const r of records) {
      assert.deepEqual(Object.keys(r).sort(), [
        "connection_id",
        "data",
        "id",
        "object",
        "record_id",
        "stream",
      ]);
      assert.deepEqual(Object.keys(r.data as object).sort(), ["message_id", "subject"]);
    }
    assert.ok(!q.text.includes("sent_at") && !q.text.includes("Short body"));
    const f = await call(client, "fetch", { id: `${world.work}/messages:long-1`, fields: ["subject"] });
    const all = JSON.stringify(f.structured);
    assert.ok(!all.includes("quarterly ledger reconciliation") && !all.includes("2024-03"), all);
    assert.equal(f.structured.title, "Quarterly ledger archive");
  });
});
