// A bare stream name shared by connectors whose capabilities differ (issue 20 item 6): a field both
// declare but only one can filter, sort or aggregate by answers 409 ambiguous_stream with
// retry_with:"stream" and the qualified names, in every tool that takes a stream, on both stores;
// the qualified name then works.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { mcpOnStore, type OnStore } from "./fixtures/on-store.js";
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
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          from: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          size: { type: "integer" },
          body: { type: "string" },
        },
      },
      query: {
        search: ["body"],
        exact_filters: ["from", "size"],
        range_filters: { sent_at: ["gte", "lt"], size: ["gte", "lte"] },
        aggregations: { group_by: ["from"], group_by_time: ["sent_at"], sum: ["size"] },
      },
    },
  ],
};

// The same field names, none of the capabilities (and size typed as text).
const CHAT: Manifest = {
  connector_key: "chat",
  display_name: "Chat",
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
          from: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          size: { type: "string" },
          body: { type: "string" },
        },
      },
      query: { search: ["body"], exact_filters: ["from", "size"] },
    },
  ],
};

for (const backend of testBackends()) {
  describe(`shared stream name, capabilities in one connector (issue 20 item 6, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let world: OnStore;
    before(async () => {
      opened = await backend.open();
      world = await mcpOnStore(opened.store, [MBOX, CHAT]);
      const mail = (await opened.store.ensureConnection("mbox", "Inbox")).connection_id;
      const chat = (await opened.store.ensureConnection("chat", "Team")).connection_id;
      await opened.store.applyBatch(
        mail,
        "messages",
        Array.from({ length: 3 }, (_, i) => ({
          op: "upsert" as const,
          data: {
            message_id: `m${i}`,
            from: "a@x",
            sent_at: `2024-01-0${i + 1}T10:00:00Z`,
            size: 10 * i,
            body: `walnut ${i}`,
          },
        })),
      );
      await opened.store.applyBatch(chat, "messages", [
        {
          op: "upsert" as const,
          data: { id: "c0", from: "b", sent_at: "2024-02-01T10:00:00Z", size: "big", body: "walnut chat" },
        },
      ]);
    });
    after(async () => opened.cleanup());

    const ambiguous: [string, Record<string, unknown>][] = [
      ["aggregate", { stream: "messages", metric: "count", group_by_time: "sent_at", granularity: "day" }],
      ["aggregate", { stream: "messages", metric: "sum", field: "size" }],
      [
        "query_records",
        { stream: "messages", filter: [{ field: "sent_at", op: "gte", value: "2024-01-02" }] },
      ],
      ["query_records", { stream: "messages", filter: [{ field: "size", op: "eq", value: 10 }] }],
      ["query_records", { stream: "messages", sort: "-size" }],
      [
        "aggregate",
        { stream: "messages", metric: "count", filter: [{ field: "size", op: "gte", value: "1" }] },
      ],
      [
        "search",
        {
          query: "walnut",
          streams: ["messages"],
          filter: [{ field: "sent_at", op: "lt", value: "2024-01-03" }],
        },
      ],
    ];

    test("every tool answers ambiguous_stream with retry_with and the qualified names", async () => {
      for (const [tool, args] of ambiguous) {
        const r = await call(world.client, tool, args);
        assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}: ${r.text}`);
        const error = errorOf(r);
        assert.equal(error.code, "ambiguous_stream", `${tool} ${JSON.stringify(args)}: ${r.text}`);
        assert.equal(error.retry_with, "stream");
        assert.deepEqual(error.available_streams, ["chat:messages", "mbox:messages"]);
        assert.match(r.text, /pass stream as one of chat:messages, mbox:messages/);
        assert.doesNotMatch(r.text, /allowed: none|range ops: none|not sortable/);
      }
    });

    test("the qualified name that has the capability answers", async () => {
      for (const [tool, args] of ambiguous) {
        const qualified =
          tool === "search" ? { ...args, streams: ["mbox:messages"] } : { ...args, stream: "mbox:messages" };
        const r = await call(world.client, tool, qualified);
        assert.equal(r.isError, false, `${tool} ${JSON.stringify(qualified)}: ${r.text}`);
      }
      const byDay = await call(world.client, "aggregate", {
        stream: "mbox:messages",
        metric: "count",
        group_by_time: "sent_at",
        granularity: "day",
      });
      assert.match(byDay.text, /"2024-01-01[^"]*"=1/);
    });

    test("what both connectors allow still fans in; what neither allows is a plain error", async () => {
      const both = await call(world.client, "query_records", {
        stream: "messages",
        filter: [{ field: "from", op: "eq", value: "b" }],
      });
      assert.equal(both.isError, false, both.text);
      const neither = await call(world.client, "aggregate", {
        stream: "messages",
        metric: "max",
        field: "from",
      });
      assert.equal(neither.isError, true);
      assert.equal(errorOf(neither).code, "invalid_request", neither.text);
    });

    test("the RS answers 409 ambiguous_stream itself", async () => {
      const r = await world.rs(
        "/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=day",
      );
      assert.equal(r.status, 409);
      const error = r.body.error as { code: string; retry_with: string; available_streams: string[] };
      assert.equal(error.code, "ambiguous_stream");
      assert.deepEqual(error.available_streams, ["chat:messages", "mbox:messages"]);
    });
  });
}
