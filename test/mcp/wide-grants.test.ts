// Issue 20 items 1 and 2 through the SDK client: the schema index of grants of 10,000+ streams and
// 200 connections names every stream in pages (text and structured), and a 400-field stream's
// field list pages instead of failing. Cursors are bound to their request and reveal nothing the
// grant cannot see. Over real transports: wide-transports.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import {
  loadGrant,
  manyStreams,
  namesInIndexText,
  pageSchema,
  WIDE_FIELDS,
  wideManifest,
  wideRecord,
} from "./fixtures/wide.js";
import {
  assertEveryNameOnce,
  assertIndexComplete,
  fieldNames,
  fieldsInData,
  fieldsInText,
  rsFor,
} from "./fixtures/wide-checks.js";
import { createClient, openTempStore, SpyRsClient } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

for (const backend of testBackends()) {
  describe(`large grants: the schema index names every stream, paged (${backend.name})`, () => {
    let opened: OpenedStore;
    before(async () => {
      opened = await backend.open();
    });
    after(async () => opened.cleanup());

    // 12,000 streams on SQLite; Postgres (one count query per stream and call, ~8 s a call on
    // this machine) pages 2,550, the store's part being the same.
    const [connectors, streams] = backend.name === "sqlite" ? [40, 300] : [50, 51];
    const total = connectors * streams;
    test(`1: ${connectors} connectors × ${streams} streams (${total} streams): every name in text and structured, in pages`, async () => {
      const manifests = manyStreams(connectors, streams);
      const token = await loadGrant(opened.store, { manifests });
      // Counts come from one read of the kept counts (countRecordsMany): they must be each stream's.
      const c0 = (await opened.store.ensureConnection("c0", "Main")).connection_id;
      const rec = (id: string) => ({ op: "upsert" as const, data: { id, at: "2024-01-01T00:00:00Z" } });
      await opened.store.applyBatch(c0, "c0_stream_001", [rec("a"), rec("b"), rec("c")]);
      await opened.store.applyBatch(c0, "c0_stream_002", [rec("a")]);
      const client = await createClient(rsFor(opened.store, token));
      const [text, structured] = await assertIndexComplete(
        client,
        manifests.flatMap((m) => m.streams.map((s) => s.name)),
      );
      assert.ok(text.pages > 1 && structured.pages > 1);
      assert.match(
        text.texts[0],
        /\n {2}c0_stream_001: 3 records time=at\n {2}c0_stream_002: 1 records time=at\n/,
      );
      assert.match(text.texts[0], /\n {2}c0_stream_000: 0 records time=at\n/);
      // The first page says how many there are and where the rest is, in both channels.
      assert.match(
        text.texts[0],
        new RegExp(`· ${total} streams · ${connectors} connections · page: streams 1–\\d+ of ${total}`),
      );
      assert.match(
        text.texts[0],
        new RegExp(`\\nmore: streams \\d+–${total} are on the next pages; call schema \\{"cursor":"sx1\\.`),
      );
      const first = JSON.parse(structured.structured[0]) as {
        data: {
          total_streams: number;
          has_more: boolean;
          next_cursor: string;
          streams_shown: { from: number };
        };
      };
      assert.equal(first.data.total_streams, total);
      assert.equal(first.data.has_more, true);
      assert.equal(first.data.streams_shown.from, 1);
      // The cursor in text is the structured one: both client classes walk the same pages.
      assert.ok(text.texts[0].includes(first.data.next_cursor));
    });
  });
}

describe("large grants: shapes of grants (200 × 10, 50 × 51, 200 connections, 500 streams)", () => {
  for (const shape of [
    { connectors: 200, streams: 10, connections: 1 },
    { connectors: 50, streams: 51, connections: 1 },
    { connectors: 1, streams: 10, connections: 200 },
    { connectors: 4, streams: 20, connections: 50 },
    // Too many connections to repeat on every page: they are paged like streams.
    { connectors: 2, streams: 10, connections: 700 },
    { connectors: 5, streams: 100, connections: 1 },
  ]) {
    test(`1: ${shape.connectors} connectors × ${shape.streams} streams × ${shape.connections} connections`, async () => {
      const { store } = await openTempStore();
      try {
        const manifests = manyStreams(shape.connectors, shape.streams);
        const labels = Array.from({ length: shape.connections }, (_, i) => `Account ${i}`);
        const token = await loadGrant(store, { manifests, connections: labels });
        const client = await createClient(rsFor(store, token));
        const [text, structured] = await assertIndexComplete(
          client,
          manifests.flatMap((m) => m.streams.map((s) => s.name)),
        );
        // 500 streams (the spec's figure) still fit one result; every connection id is printed.
        if (shape.connectors * shape.streams <= 500 && shape.connections <= 200) assert.equal(text.pages, 1);
        const connections = await store.listConnections();
        const all = text.texts.join("\n");
        for (const c of connections) assert.ok(all.includes(c.connection_id), c.connection_id);
        const listed = structured.structured.flatMap((page) =>
          (
            JSON.parse(page) as { data: { connectors: { connections: { connection_id: string }[] }[] } }
          ).data.connectors.flatMap((c) => c.connections.map((x) => x.connection_id)),
        );
        for (const c of connections) assert.ok(listed.includes(c.connection_id), c.connection_id);
      } finally {
        await store.close();
      }
    });
  }

  test("1: streams visible on some connections only are grouped by those connections", async () => {
    const { store } = await openTempStore();
    try {
      const manifests = manyStreams(1, 600);
      await store.putManifest(manifests[0]);
      const a = (await store.ensureConnection("c0", "A")).connection_id;
      const b = (await store.ensureConnection("c0", "B")).connection_id;
      const token = await loadGrant(store, { manifests, connections: ["A", "B"] });
      // A second grant: the first 300 streams on A and B, the rest on B only.
      const { hashToken, newToken } = await import("../../src/core/ids.js");
      const split = newToken("client");
      await store.createGrant({
        grant_id: `grt_${"b".repeat(16)}`,
        client_name: "split",
        purpose: "tests",
        created_at: "2026-01-01T00:00:00.000Z",
        expires_at: null,
        revoked_at: null,
        streams: manifests[0].streams.map((s, i) => ({
          stream: s.name,
          connector_key: "c0",
          connections: i < 300 ? [a, b] : [b],
          fields: "all" as const,
        })),
        token_hash: hashToken(split),
      });
      assert.ok(token);
      const client = await createClient(rsFor(store, split));
      const r = await call(client, "schema", {});
      assert.equal(r.isError, false, r.text);
      const onB = r.text.split("\n").find((l) => l.startsWith(`  on ${b}: streams=`)) ?? "";
      assert.ok(onB.includes("c0_stream_599") && !onB.includes("c0_stream_000,"), onB.slice(0, 200));
      assert.deepEqual(namesInIndexText(r.text).sort(), manifests[0].streams.map((s) => s.name).sort());
    } finally {
      await store.close();
    }
  });
});

describe("schema index cursors: bound, checked, and blind to hidden data", () => {
  test("1: a malformed cursor fails before any RS call; a cursor for other arguments or a changed index is refused", async () => {
    const { store } = await openTempStore();
    try {
      const manifests = manyStreams(20, 100);
      const token = await loadGrant(store, { manifests });
      const spy = new SpyRsClient(rsFor(store, token));
      const client = await createClient(spy);
      const first = await call(client, "schema", {});
      const cursor = (first.structured.data as { next_cursor: string }).next_cursor;
      assert.match(cursor, /^sx1\./);
      spy.calls = [];
      for (const bad of ["nope", `${cursor}x`, "sx1.%%%", `sx1.${Buffer.from("{}").toString("base64url")}`]) {
        const r = await call(client, "schema", { cursor: bad });
        assert.equal(r.isError, true);
        assert.equal(errorOf(r).code, "invalid_cursor");
      }
      assert.deepEqual(spy.calls, []);
      // An index cursor does not page a stream's fields.
      const wrong = await call(client, "schema", { stream: "c0_stream_000", cursor });
      assert.equal(errorOf(wrong).code, "invalid_cursor");
      // The index changed (a new connection): the cursor is stale, and says how to start over.
      await store.ensureConnection("c3", "Second");
      const stale = await call(client, "schema", { cursor });
      assert.equal(errorOf(stale).code, "stale_cursor");
      assert.match(stale.text, /call schema \{\} without cursor/);
    } finally {
      await store.close();
    }
  });

  test("1: two stores that differ only in hidden connectors, connections and records page identically", async () => {
    const visible = manyStreams(30, 100);
    const hidden = manyStreams(3, 400, "h");
    const answers: string[][] = [];
    for (const extra of [false, true]) {
      const { store } = await openTempStore();
      try {
        const manifests = extra ? [...visible, ...hidden] : visible;
        const token = await loadGrant(store, {
          manifests,
          granted: visible,
          connections: extra ? ["Main", "Hidden"] : ["Main"],
          visible: ["Main"],
        });
        if (extra) {
          const [conn] = (await store.listConnections()).filter(
            (c) => c.connector_key === "c0" && c.display_name === "Hidden",
          );
          await store.applyBatch(conn.connection_id, "c0_stream_000", [
            { op: "upsert", data: { id: "secret", at: "2024-01-01T00:00:00Z" } },
          ]);
        }
        const client = await createClient(rsFor(store, token));
        const paged = await pageSchema(client, { mode: "structured", collect: () => [] });
        answers.push([...paged.texts, ...paged.structured]);
      } finally {
        await store.close();
      }
    }
    assert.ok(answers[0].length > 2, "the index should page");
    assert.deepEqual(answers[1], answers[0]);
  });
});

for (const backend of testBackends()) {
  describe(`wide streams: 400 fields (${backend.name})`, () => {
    let opened: OpenedStore;
    let client: Client;
    let a: string;
    before(async () => {
      opened = await backend.open();
      const store = opened.store;
      const manifest = wideManifest();
      const token = await loadGrant(store, { manifests: [manifest], connections: ["A", "B"] });
      a = (await store.ensureConnection("wide", "A")).connection_id;
      const b = (await store.ensureConnection("wide", "B")).connection_id;
      await store.applyBatch(a, "rows", [
        { op: "upsert", data: wideRecord("r1") },
        { op: "upsert", data: wideRecord("r2") },
      ]);
      await store.applyBatch(b, "rows", [{ op: "upsert", data: wideRecord("r3") }]);
      client = await createClient(rsFor(store, token));
    });
    after(async () => opened.cleanup());

    test("2: schema(stream) pages the field list with every remedy combination, never limit_exceeded", async () => {
      const expected = fieldNames();
      for (const args of [
        { stream: "rows" },
        { stream: "rows", connection_id: a },
        { stream: "rows", connection_id: a, detail: "compact" },
        { stream: "rows", connection_id: a, detail: "full" },
      ] as Record<string, unknown>[]) {
        const text = await pageSchema(client, { mode: "text", args, collect: (r) => fieldsInText(r.text) });
        const structured = await pageSchema(client, {
          mode: "structured",
          args,
          collect: (r) => fieldsInData(r.data),
        });
        assertEveryNameOnce(text, expected);
        assertEveryNameOnce(structured, expected);
        for (const page of text.texts) {
          assert.match(page, new RegExp(`· page: fields \\d+–\\d+ of ${WIDE_FIELDS + 1}`));
          // No remedy that is already applied is named.
          if (args.connection_id) assert.doesNotMatch(page, /pass connection_id/);
          if (args.detail === "full") assert.doesNotMatch(page, /detail:"full"\)/);
          assert.doesNotMatch(page, /detail:"compact"/);
        }
        // The continuation repeats the arguments it is bound to.
        assert.ok(
          text.texts[0].includes(`call schema ${JSON.stringify({ ...args, cursor: "" }).slice(0, -3)}`),
        );
        if (args.detail === "full") {
          // The JSON Schema's properties come in the same pages, each once.
          const props = structured.structured.flatMap((s) => {
            const d = JSON.parse(s) as {
              data: { connectors: { streams: { schema: { properties: object } }[] }[] };
            };
            return Object.keys(d.data.connectors[0].streams[0].schema.properties);
          });
          assert.deepEqual(props.sort(), [...expected].sort());
        }
      }
    });

    test("2: a field-list cursor is bound to its arguments", async () => {
      const first = await call(client, "schema", { stream: "rows", connection_id: a });
      const cursor = (first.structured.data as { next_cursor: string }).next_cursor;
      const other = await call(client, "schema", {
        stream: "rows",
        connection_id: a,
        detail: "full",
        cursor,
      });
      assert.equal(errorOf(other).code, "stale_cursor");
      assert.match(
        other.text,
        /call schema \{"stream":"rows","connection_id":"cin_\w+","detail":"full"\} without cursor/,
      );
      const index = await call(client, "schema", { cursor });
      assert.equal(errorOf(index).code, "invalid_cursor");
    });
  });
}
