// Stream names shared by connectors (30-mcp.md, issue 9 item 2), through the SDK client on a real
// store + RS: qualified `connector_key:stream` everywhere a stream is named, 409 ambiguous_stream
// for a field only some connectors have, fan-in aggregates that say what they span, bare ids.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Manifest } from "../../src/core/manifest.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import type { Store } from "../../src/store/store.js";
import { BASE_URL, createClient, grantAll, openTempStore } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

const MBOX: Manifest = {
  connector_key: "mbox",
  display_name: "Mail",
  version: "1",
  streams: [
    {
      name: "messages",
      primary_key: ["message_id"],
      time_field: "sent_at",
      title_field: "subject",
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          from: { type: "string" },
          subject: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string" },
        },
      },
      text_fields: ["body"],
      query: { search: ["subject", "body"], exact_filters: ["from"], aggregations: { group_by: ["from"] } },
    },
  ],
};

const CHATGPT: Manifest = {
  connector_key: "chatgpt",
  display_name: "ChatGPT",
  version: "1",
  streams: [
    {
      name: "messages",
      primary_key: ["id"],
      time_field: "sent_at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          role: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string" },
        },
      },
      text_fields: ["body"],
      query: { search: ["body"], exact_filters: ["role"] },
    },
  ],
};

describe("qualified stream names (issue 9 item 2)", () => {
  let store: Store;
  let client: Client;
  let mail: string;
  let chat: string;
  before(async () => {
    ({ store } = await openTempStore());
    await store.putManifest(MBOX);
    await store.putManifest(CHATGPT);
    mail = (await store.ensureConnection("mbox", "Inbox")).connection_id;
    chat = (await store.ensureConnection("chatgpt", "Chats")).connection_id;
    await store.applyBatch(
      mail,
      "messages",
      Array.from({ length: 3 }, (_, i) => ({
        op: "upsert" as const,
        data: {
          message_id: `m${i}`,
          from: i === 0 ? "alice@example.com" : "bob@example.com",
          subject: `Walnut report ${i}`,
          sent_at: `2024-01-0${i + 1}T10:00:00Z`,
          body: `walnut mail body ${i}`,
        },
      })),
    );
    await store.applyBatch(
      chat,
      "messages",
      Array.from({ length: 2 }, (_, i) => ({
        op: "upsert" as const,
        data: { id: `c${i}`, role: "user", sent_at: `2024-02-0${i + 1}T10:00:00Z`, body: `walnut chat ${i}` },
      })),
    );
    const token = await grantAll(store, [MBOX, CHATGPT]);
    const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
    client = await createClient(new InProcessRsClient(async (r) => app.fetch(r), token, BASE_URL));
  });
  after(async () => store.close());

  test("the schema index shows qualified names for the shared name, in both channels", async () => {
    const r = await call(client, "schema", {});
    assert.match(r.text, /\n {2}chatgpt:messages: 2 records/);
    assert.match(r.text, /\n {2}mbox:messages: 3 records/);
    const rows = (
      r.structured.data as { connectors: { streams: { name: string; qualified_name?: string }[] }[] }
    ).connectors.flatMap((c) => c.streams);
    assert.deepEqual(
      rows.map((s) => [s.name, s.qualified_name]),
      [
        ["messages", "chatgpt:messages"],
        ["messages", "mbox:messages"],
      ],
    );
    const one = await call(client, "schema", { stream: "mbox:messages" });
    assert.equal(one.isError, false, one.text);
    assert.match(one.text, /^schema mbox:messages · 1 row · view=compact/);
    assert.doesNotMatch(one.text, /\[chatgpt\]/);
  });

  test("a field only one connector has, on the bare name: 409 ambiguous_stream with the qualified names", async () => {
    const calls: [string, Record<string, unknown>][] = [
      [
        "query_records",
        { stream: "messages", filter: [{ field: "from", op: "eq", value: "alice@example.com" }] },
      ],
      ["query_records", { stream: "messages", fields: ["from"] }],
      ["aggregate", { stream: "messages", metric: "count", group_by: "from" }],
      [
        "search",
        { query: "walnut", streams: ["messages"], filter: [{ field: "from", op: "eq", value: "x" }] },
      ],
    ];
    for (const [tool, args] of calls) {
      const r = await call(client, tool, args);
      assert.equal(r.isError, true, `${tool}: ${r.text}`);
      const error = errorOf(r);
      assert.equal(error.code, "ambiguous_stream", r.text);
      assert.equal(error.retry_with, "stream");
      assert.deepEqual(error.available_streams, ["chatgpt:messages", "mbox:messages"]);
      assert.match(
        r.text,
        /^error ambiguous_stream: messages is a stream of 2 connectors and from is not a field/,
      );
    }
  });

  test("the qualified name reads one connector's stream; ids keep the bare stream name", async () => {
    const r = await call(client, "query_records", {
      stream: "mbox:messages",
      filter: [{ field: "from", op: "eq", value: "alice@example.com" }],
    });
    assert.equal(r.isError, false, r.text);
    const data = (r.structured.data as { data: { id: string; stream: string }[] }).data;
    assert.deepEqual(
      data.map((d) => [d.id, d.stream]),
      [[`${mail}/messages:m0`, "messages"]],
    );
    const all = await call(client, "query_records", { stream: "messages" });
    assert.equal(all.isError, false, all.text);
    assert.equal((all.structured.data as { data: unknown[] }).data.length, 5);
    const w = await call(client, "read_record_field", {
      connection_id: chat,
      stream: "chatgpt:messages",
      record_id: "c1",
      field_path: "body",
    });
    assert.equal(w.isError, false, w.text);
    assert.equal((w.structured.record as { id: string }).id, `${chat}/messages:c1`);
    assert.equal(w.text.split("\n")[1], "walnut chat 1");
    const f = await call(client, "fetch", { id: `${mail}/messages:m2` });
    assert.equal(f.isError, false, f.text);
    assert.equal(f.structured.id, `${mail}/messages:m2`);
    const s = await call(client, "search", { query: "walnut", streams: ["chatgpt:messages"] });
    const results = s.structured.results as { id: string; connector_key: string; stream: string }[];
    assert.deepEqual(results.map((x) => x.connector_key).sort(), ["chatgpt", "chatgpt"]);
    assert.ok(results.every((x) => x.stream === "messages" && x.id.startsWith(`${chat}/messages:`)));
  });

  test("a fan-in aggregate names the qualified streams it spans; a qualified one does not mix", async () => {
    const both = await call(client, "aggregate", { stream: "messages", metric: "count" });
    assert.equal(
      both.text,
      "count(messages) = 5 · records matched=5 · spans chatgpt:messages, mbox:messages",
    );
    assert.deepEqual((both.structured.data as { streams: string[] }).streams, [
      "chatgpt:messages",
      "mbox:messages",
    ]);
    const one = await call(client, "aggregate", {
      stream: "mbox:messages",
      metric: "count",
      group_by: "from",
    });
    assert.equal(one.isError, false, one.text);
    assert.match(one.text, /^count\(mbox:messages\) by from: "bob@example.com"=2, "alice@example.com"=1/);
  });

  test("an unknown connector or a malformed qualified name is a plain not-found / bad request", async () => {
    const unknown = await call(client, "query_records", { stream: "slack:messages" });
    assert.equal(errorOf(unknown).code, "stream_not_found");
    const bad = await call(client, "query_records", { stream: "mbox:messages:x" });
    assert.equal(errorOf(bad).code, "stream_not_found");
  });
});
