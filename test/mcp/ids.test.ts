// Ids at the MCP edge: self-contained and legacy forms, connection conflicts and malformed ids
// (zero RS calls, counted by a spy), hostile record keys fetchable by the id search returns.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { encodeRecordId } from "../../src/core/ids.js";
import { buildWorld, HOSTILE_KEYS, SpyRsClient, type World } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

describe("ids", () => {
  let world: World;
  let client: Client;
  let spy: SpyRsClient;
  let spyClient: Client;
  before(async () => {
    world = await buildWorld();
    client = await world.client();
    spy = new SpyRsClient(world.rs());
    spyClient = await world.client({ rs: spy });
  });
  after(() => world.close());

  test("self-contained id fetches on a multi-connection stream and echoes the id", async () => {
    const id = `${world.home}/messages:shared-1`;
    const r = await call(client, "fetch", { id });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.id, id);
    assert.equal(r.structured.title, "Shared zebra note home");
    assert.deepEqual(Object.keys(r.structured ?? {}).sort(), ["id", "metadata", "text", "title", "url"]);
    assert.equal(r.content.length, 1);
    assert.deepEqual(JSON.parse(r.text), r.structured);
  });

  test("equal connection_id is fine; a different one is conflicting_connection_id with zero RS calls", async () => {
    const id = `${world.work}/messages:shared-1`;
    const ok = await call(client, "fetch", { id, connection_id: world.work });
    assert.equal(ok.structured.title, "Shared zebra note work");
    spy.calls = [];
    const bad = await call(spyClient, "fetch", { id, connection_id: world.home });
    assert.equal(bad.isError, true);
    assert.equal(errorOf(bad).code, "conflicting_connection_id");
    assert.deepEqual(spy.calls, []);
  });

  test("legacy id: scoped by connection_id works; unscoped on a shared record is the RS's ambiguous_connection", async () => {
    const scoped = await call(client, "fetch", { id: "messages:shared-1", connection_id: world.home });
    assert.equal(scoped.structured.id, "messages:shared-1");
    assert.equal((scoped.structured.metadata as { connection_id: string }).connection_id, world.home);
    const ambiguous = await call(client, "fetch", { id: "messages:shared-1" });
    assert.equal(ambiguous.isError, true);
    const err = errorOf(ambiguous);
    assert.equal(err.code, "ambiguous_connection");
    assert.equal(err.retry_with, "connection_id");
    assert.match(ambiguous.text, /^error ambiguous_connection: /);
    // The RS's REST hint is given in tool form: a model here calls schema, not GET /v1/schema.
    assert.equal(err.hint, 'call schema(stream:"messages") for the full index of connections.');
  });

  test("malformed and traversal ids fail with invalid_id before any RS call", async () => {
    const bad = [
      "",
      "messages",
      ":x",
      "/messages:x",
      `${world.work}/`,
      `${world.work}/messages:`,
      `${world.work}//messages:x`,
      `${world.work}/messages:a/b`,
      `${world.work}/messages:..`,
      `${world.work}/messages:.`,
      "../../etc/passwd:x",
      "cin_zz/messages:x",
      `${world.work}/../messages:x`,
      `${world.work}/messages:a\\b`,
      `${world.work}/messages:a\u0000b`,
      "Messages:x",
    ];
    for (const id of bad) {
      spy.calls = [];
      const r = await call(spyClient, "fetch", { id });
      assert.equal(r.isError, true, id);
      assert.equal(errorOf(r).code, "invalid_id", `${JSON.stringify(id)} → ${r.text}`);
      assert.deepEqual(spy.calls, [], `RS was called for ${JSON.stringify(id)}`);
      const w = await call(spyClient, "read_record_field", { id, field_path: "body" });
      assert.equal(w.isError, true);
      assert.deepEqual(spy.calls, [], `RS was called by read_record_field for ${JSON.stringify(id)}`);
    }
  });

  test("read_record_field refuses a legacy id without connection, asking for the self-contained form", async () => {
    spy.calls = [];
    const r = await call(spyClient, "read_record_field", { id: "messages:long-1", field_path: "body" });
    assert.equal(errorOf(r).code, "invalid_id");
    assert.match(r.text, /self-contained/);
    assert.deepEqual(spy.calls, []);
  });

  test("hostile record keys: search returns ids that fetch and window as-is, printed whole in text", async () => {
    for (const [i, key] of HOSTILE_KEYS.entries()) {
      const recordId = encodeRecordId([key]);
      const r = await call(client, "search", { query: `"Subject ${i} ledger"`, streams: ["messages"] });
      const results = r.structured.results as { id: string; record_id: string }[];
      const hit = results.find((h) => h.record_id === recordId);
      assert.ok(hit, `no hit for ${key}: ${r.text}`);
      assert.equal(hit.id, `${world.work}/messages:${recordId}`);
      assert.ok(r.text.includes(`id=${hit.id}\n`), `id not printed whole: ${r.text}`);
      const doc = await call(client, "fetch", { id: hit.id });
      assert.equal(doc.isError, false, `${hit.id}: ${doc.text}`);
      assert.equal(doc.structured.id, hit.id);
      assert.equal((doc.structured.metadata as { record_id: string }).record_id, recordId);
      assert.equal(doc.structured.text, `Short body ${i} about the ledger.`);
      const w = await call(client, "read_record_field", { id: hit.id, field_path: "subject" });
      assert.equal((w.structured.window as { text: string }).text, `Subject ${i} ledger`);
    }
  });

  test("search ids embed the connection; text prints each shown id whole and names first_fetch_id", async () => {
    const r = await call(client, "search", { query: "zebra" });
    const results = r.structured.results as {
      id: string;
      connection_id: string;
      stream: string;
      record_id: string;
    }[];
    assert.ok(results.length >= 2);
    for (const hit of results) {
      assert.equal(hit.id, `${hit.connection_id}/${hit.stream}:${hit.record_id}`);
      assert.ok(r.text.includes(`id=${hit.id}\n`), hit.id);
    }
    assert.ok(r.text.includes(`first_fetch_id=${results[0].id}`));
    assert.match(r.text, /source_mix=/);
    assert.ok(!r.text.includes("connection_id=cin_"), "connection_id printed separately for an embedding id");
  });
});
