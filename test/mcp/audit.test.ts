// Contract points of 30-mcp.md found unmet in the adapter audit, pinned on a real store + RS:
// in-process document URLs, cached schema rows, binary fields, cut small fields, and the
// 40,000-char cap on cursor windows, grouped aggregates and oversized records.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { canonicalJson } from "../../src/core/canonical-json.js";
import { sha256Digest } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { blobUri, recordUri, windowUri } from "../../src/core/render/handles.js";
import { InProcessRsClient, type RsClient } from "../../src/mcp/rs-client.js";
import { createPdppMcpServer } from "../../src/mcp/server.js";
import { createApp } from "../../src/rs/app.js";
import type { Store } from "../../src/store/store.js";
import { BASE_URL, grantAll, openTempStore, SpyRsClient } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

const DOCS: Manifest = {
  connector_key: "docs",
  display_name: "Docs",
  version: "1",
  streams: [
    {
      name: "files",
      primary_key: ["file_id"],
      title_field: "name",
      schema: {
        type: "object",
        properties: {
          file_id: { type: "string" },
          name: { type: "string" },
          tag: { type: "string" },
          summary: { type: "string" },
          body: { type: "string" },
          image: { type: "string", contentMediaType: "image/png" },
          points: { type: "array" },
        },
      },
      text_fields: ["body"],
      binary_fields: ["image"],
      query: { search: ["name", "body"], exact_filters: ["tag"], aggregations: { group_by: ["tag"] } },
    },
  ],
};

const BASE64 = Buffer.from("\u0089PNG fake image bytes ".repeat(40)).toString("base64");
const SUMMARY = `${"summary words ".repeat(30)}SUMMARY-END`;
// Plain text first, then control characters whose JSON escapes are six chars each.
const CONTROL_BODY = "a".repeat(16_384) + "\u0001".repeat(16_384);

async function openDocs(): Promise<{ store: Store; dir: string; conn: string; rs: () => RsClient }> {
  const { store, dir } = await openTempStore();
  await store.putManifest(DOCS);
  const conn = (await store.ensureConnection("docs", "Drive")).connection_id;
  const ops = [
    { file_id: "img-1", name: "Holiday photo", tag: "t0", summary: SUMMARY, body: "A photo.", image: BASE64 },
    { file_id: "ctl-1", name: "Control chars", tag: "t1", body: CONTROL_BODY },
    {
      file_id: "pts-1",
      name: "Many points",
      tag: "t2",
      points: Array.from({ length: 8000 }, (_, i) => ({ x: i })),
    },
    ...Array.from({ length: 60 }, (_, i) => ({
      file_id: `tag-${i}`,
      name: `Tagged ${i}`,
      tag: `${i}-${"k".repeat(1200)}`,
    })),
  ].map((data) => ({ op: "upsert" as const, data }));
  await store.applyBatch(conn, "files", ops);
  const token = await grantAll(store, [DOCS]);
  const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
  return { store, dir, conn, rs: () => new InProcessRsClient((r, env) => app.fetch(r, env), token) };
}

/** A client of a server that runs the RS in-process with no public URL (`pdpp mcp --store`). */
async function inProcessClient(rs: RsClient): Promise<Client> {
  const server = createPdppMcpServer({ rs, providerUrl: null });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "audit", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return client;
}

describe("adapter audit", () => {
  let docs: Awaited<ReturnType<typeof openDocs>>;
  let spy: SpyRsClient;
  let client: Client;
  before(async () => {
    docs = await openDocs();
    spy = new SpyRsClient(docs.rs());
    client = await inProcessClient(spy);
  });
  after(async () => {
    await docs.store.close();
  });

  test("in-process: search and fetch url is the record's pdpp:// URI, which resources/read answers", async () => {
    const s = await call(client, "search", { query: "Holiday" });
    const hit = (s.structured.results as { id: string; url: string }[])[0];
    const uri = recordUri({ c: docs.conn, s: "files", r: "img-1" });
    assert.equal(hit.url, uri);
    assert.ok(!s.text.includes("http://") && !JSON.stringify(s.structured).includes("http://"));
    const doc = await call(client, "fetch", { id: hit.id });
    assert.equal(doc.structured.url, uri);
    const res = await client.readResource({ uri });
    assert.deepEqual(JSON.parse((res.contents[0] as { text: string }).text), doc.structured);
  });

  test("fetch asks the RS for the stream's schema once per server, not on every call", async () => {
    spy.calls = [];
    for (let i = 0; i < 3; i++) await call(client, "fetch", { id: `${docs.conn}/files:tag-${i}` });
    assert.deepEqual(spy.calls.filter((p) => p === "/v1/schema").length <= 1, true, spy.calls.join(" "));
    assert.equal(spy.calls.filter((p) => p.startsWith("/v1/streams/files/records/")).length, 3);
  });

  test("binary fields: MIME type, size and a handle in both channels; never the base64", async () => {
    const q = await call(client, "query_records", {
      stream: "files",
      filter: [{ field: "tag", op: "eq", value: "t0" }],
    });
    assert.ok(
      !q.text.includes(BASE64.slice(0, 32)) && !JSON.stringify(q.structured).includes(BASE64.slice(0, 32)),
    );
    const rec = (q.structured.data as { data: { data: Record<string, unknown> }[] }).data[0];
    // The stored digest comes from the chunk metadata: the bytes stay in the store (item 7).
    assert.deepEqual(Object.keys(rec.data.image as object).sort(), [
      "binary",
      "digest",
      "mime_type",
      "size_chars",
    ]);
    assert.equal((rec.data.image as { size_chars: number }).size_chars, BASE64.length);
    assert.match(q.text, /"image":"\[binary image\/png, \d+ chars, not inlined\]"/);
    const ladder = q.structured.content_ladder as Record<string, unknown>[];
    const entry = ladder.find((e) => (e.field as { path: string }).path === "image");
    assert.ok(entry, JSON.stringify(ladder));
    assert.equal((entry.preview as { status: string }).status, "binary_only");
    assert.equal(entry.continue, undefined);
    // Issue 20 item 8: the handle reads the bytes (test/mcp/blob-resources.test.ts).
    assert.equal(entry.resource_uri, blobUri({ c: docs.conn, s: "files", r: "img-1", f: "image", o: 0 }));
    assert.equal(entry.digest, sha256Digest(BASE64));
    const doc = await call(client, "fetch", { id: `${docs.conn}/files:img-1` });
    assert.ok(!doc.text.includes(BASE64.slice(0, 32)));
    assert.equal(doc.structured.text, "A photo.");
  });

  test("fetch: a small field cut at 200 chars carries the read_record_field args that finish it", async () => {
    const doc = await call(client, "fetch", { id: `${docs.conn}/files:img-1` });
    const meta = doc.structured.metadata as {
      fields: { summary: string };
      fields_cut: {
        summary: { shown: number; total: number; continue_with: { args: Record<string, unknown> } };
      };
    };
    assert.equal(meta.fields.summary, SUMMARY.slice(0, 200));
    assert.equal(meta.fields_cut.summary.total, SUMMARY.length);
    const rest = await call(client, "read_record_field", meta.fields_cut.summary.continue_with.args);
    assert.equal(meta.fields.summary + (rest.structured.window as { text: string }).text, SUMMARY);
  });

  test("a cursor window whose text escapes past the cap is re-asked smaller; paging stays exact", async () => {
    const id = `${docs.conn}/files:ctl-1`;
    let r = await call(client, "read_record_field", { id, field_path: "body", limit_chars: 16_384 });
    let assembled = "";
    for (let i = 0; i < 50; i++) {
      assert.equal(r.isError, false, r.text);
      assert.ok(JSON.stringify(r.structured).length <= 40_000);
      assert.ok(r.text.length <= 40_000);
      const w = r.structured.window as { text: string; next_cursor: string | null };
      assembled += w.text;
      if (!w.next_cursor) break;
      r = await call(client, "read_record_field", { id, field_path: "body", cursor: w.next_cursor });
    }
    assert.equal(assembled, CONTROL_BODY);
  });

  test("grouped aggregate with long keys: clipped keys and a warning, within the cap", async () => {
    const r = await call(client, "aggregate", {
      stream: "files",
      metric: "count",
      group_by: "tag",
      limit: 100,
    });
    assert.ok(JSON.stringify(r.structured).length <= 40_000);
    const data = r.structured.data as { groups: { key: string }[]; meta: { warnings: { code: string }[] } };
    assert.ok(data.groups.some((g) => g.key.endsWith("…") && g.key.length === 201));
    assert.ok(data.meta.warnings.some((w) => w.code === "group_keys_clipped"));
    assert.ok(r.text.length <= 1_200);
  });

  test("3: an array over 40k chars: query_records and fetch point at read_record_field, whose cursors reassemble its canonical JSON", async () => {
    const json = canonicalJson(Array.from({ length: 8000 }, (_, i) => ({ x: i })));
    assert.ok(json.length > 40_000);
    const id = `${docs.conn}/files:pts-1`;
    const q = await call(client, "query_records", {
      stream: "files",
      filter: [{ field: "tag", op: "eq", value: "t2" }],
      limit: 1,
    });
    assert.equal(q.isError, false, q.text);
    assert.ok(JSON.stringify(q.structured).length <= 40_000);
    const rec = (q.structured.data as { data: { id: string; data: Record<string, unknown> }[] }).data[0];
    assert.equal(rec.id, id);
    assert.equal(rec.data.points, json.slice(0, 2048));
    const ladder = q.structured.content_ladder as Record<string, unknown>[];
    assert.deepEqual(ladder, [
      {
        id,
        connection_id: docs.conn,
        stream: "files",
        record_id: "pts-1",
        field: {
          path: "points",
          type: "array",
          text_like: false,
          size_chars: json.length,
          mime_type: "application/json",
        },
        preview: { status: "truncated", start_chars: 0, end_chars: 2048 },
        continue: { tool: "read_record_field", args: { id, field_path: "points", offset_chars: 2048 } },
        resource_uri: windowUri({ c: docs.conn, s: "files", r: "pts-1", f: "points", w: { o: 2048 } }),
        digest: sha256Digest(json),
      },
    ]);
    // The text channel names the cut and its continuation too.
    const cut = /"cut":\{"points":\[(\d+),(\d+)\]\}/.exec(q.text);
    assert.ok(cut, q.text);
    assert.equal(Number(cut[2]), json.length);
    assert.match(q.text, /continue with read_record_field \{id, field_path, offset_chars:shown\}/);
    const fromText = await call(client, "read_record_field", {
      id,
      field_path: "points",
      offset_chars: Number(cut[1]),
    });
    assert.equal(
      fromText.text.split("\n").slice(1).join("\n"),
      json.slice(Number(cut[1]), Number(cut[1]) + 4096),
    );

    // fetch: the record JSON is cut, and the way on is read_record_field on the array itself.
    const f = await call(client, "fetch", { id });
    const meta = f.structured.metadata as Record<string, unknown>;
    assert.equal(meta.text_complete, false);
    assert.deepEqual(meta.large_fields, { points: json.length });
    assert.deepEqual(meta.continue_with, { tool: "read_record_field", args: { id, field_path: "points" } });

    // Following next_cursor from the fetch continuation reads the whole canonical JSON, both channels.
    let args: Record<string, unknown> = {
      ...(meta.continue_with as { args: Record<string, unknown> }).args,
      limit_chars: 16_384,
    };
    let structured = "";
    let text = "";
    for (let i = 0; i < 20; i++) {
      const r = await call(client, "read_record_field", args);
      assert.equal(r.isError, false, r.text);
      const w = r.structured.window as { text: string; next_cursor: string | null };
      assert.deepEqual(r.structured.field, {
        path: "points",
        mime_type: "application/json",
        text_like: false,
        size_chars: json.length,
        digest: sha256Digest(json),
      });
      structured += w.text;
      text += r.text.slice(r.text.indexOf("\n") + 1);
      if (w.next_cursor === null) break;
      args = { id, field_path: "points", cursor: w.next_cursor };
    }
    assert.equal(structured, json);
    assert.equal(text, json);
  });

  test("resource errors: a 2025 client gets resource not found (-32002) for a missing record, the typed RS body in data", async () => {
    const uri = recordUri({ c: docs.conn, s: "files", r: "nope" });
    await assert.rejects(client.readResource({ uri }), (e: { code: number; data: { code: string } }) => {
      assert.equal(e.code, -32002);
      assert.equal(e.data.code, "record_not_found");
      return true;
    });
  });

  test("error results are content-only (a structuredContent would have to satisfy the output schema)", async () => {
    const raw = await client.callTool({ name: "fetch", arguments: { id: `${docs.conn}/files:nope` } });
    assert.equal(raw.isError, true);
    assert.equal(raw.structuredContent, undefined);
    const r = await call(client, "fetch", { id: `${docs.conn}/files:nope` });
    assert.equal(errorOf(r).code, "record_not_found");
    assert.match(r.text, /^error record_not_found: /);
  });

  test("3: fetch of a record with text and a large array: the array is cut in metadata with a continuation that finishes it", async () => {
    const points = Array.from({ length: 3000 }, (_, i) => ({ x: i, label: `p${i}` }));
    const json = canonicalJson(points);
    await docs.store.applyBatch(docs.conn, "files", [
      { op: "upsert", data: { file_id: "mix-1", name: "Mixed", tag: "t9", body: "Short text.", points } },
    ]);
    const id = `${docs.conn}/files:mix-1`;
    const f = await call(client, "fetch", { id });
    assert.equal(f.structured.text, "Short text.");
    const meta = f.structured.metadata as {
      fields: Record<string, unknown>;
      fields_cut: Record<
        string,
        { shown: number; total: number; continue_with: { args: Record<string, unknown> } }
      >;
    };
    assert.equal(meta.fields.points, json.slice(0, 200));
    assert.deepEqual(meta.fields_cut.points, {
      shown: 200,
      total: json.length,
      continue_with: { tool: "read_record_field", args: { id, field_path: "points", offset_chars: 200 } },
    });
    let args: Record<string, unknown> = { ...meta.fields_cut.points.continue_with.args, limit_chars: 16_384 };
    let rest = "";
    for (let i = 0; i < 20; i++) {
      const r = await call(client, "read_record_field", args);
      const w = r.structured.window as { text: string; next_cursor: string | null };
      rest += w.text;
      if (w.next_cursor === null) break;
      args = { id, field_path: "points", cursor: w.next_cursor };
    }
    assert.equal(`${meta.fields.points}${rest}`, json);
  });
});
