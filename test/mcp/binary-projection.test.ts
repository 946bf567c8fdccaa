// Issue 9 item 7: binary fields are projected out in the store. A fetch (and a query_records page)
// of a record with a 20 MB base64 field gets the field's size from the store, never its bytes: the
// RS answer the adapter reads stays small, and the MCP answer has the same shape as for a tiny blob.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamScope } from "../../src/core/grant.js";
import { sha256Digest } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import type { Store } from "../../src/store/store.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import { BASE_URL, createClient, grantAll } from "./fixtures/world.js";
import { call } from "./helpers.js";

const FILES: Manifest = {
  connector_key: "files",
  display_name: "Files",
  version: "1",
  streams: [
    {
      name: "attachments",
      primary_key: ["file_id"],
      title_field: "name",
      schema: {
        type: "object",
        properties: {
          file_id: { type: "string" },
          name: { type: "string" },
          blob: { type: "string", contentMediaType: "application/pdf" },
          note: { type: "string" },
          attachment: {
            type: "object",
            properties: { name: { type: "string" }, data: { type: "string", contentMediaType: "image/png" } },
          },
        },
      },
      binary_fields: ["blob", "attachment.data"],
      query: { exact_filters: ["name"] },
    },
  ],
};

const BIG_CHARS = 20_000_000;
const BIG = "QUJD".repeat(BIG_CHARS / 4);
const TINY = "QUJD";
// Chunked binary fields bring their stored digest (sha256 of the base64 text) without the bytes.
const BIG_DIGEST = sha256Digest(BIG);
const TINY_DIGEST = sha256Digest(TINY);

/** The RS answers an in-process client got, by path, with their body sizes in bytes. */
interface Seen {
  path: string;
  query: string;
  bytes: number;
}

for (const backend of testBackends()) {
  describe(`binary fields stay in the store (${backend.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    let conn: string;
    let client: Client;
    const seen: Seen[] = [];
    before(async () => {
      opened = await backend.open();
      store = opened.store;
      await store.putManifest(FILES);
      conn = (await store.ensureConnection("files", "Drive")).connection_id;
      await store.applyBatch(conn, "attachments", [
        { op: "upsert", data: { file_id: "big", name: "Big scan", blob: BIG, note: "n" } },
        { op: "upsert", data: { file_id: "tiny", name: "Tiny scan", blob: TINY, note: "n" } },
      ]);
      const token = await grantAll(store, [FILES]);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      const rs = new InProcessRsClient(async (r, env) => {
        const res = await app.fetch(r, env);
        const body = await res.arrayBuffer();
        const url = new URL(r.url);
        seen.push({ path: url.pathname, query: url.search, bytes: body.byteLength });
        return new Response(body, { status: res.status, headers: res.headers });
      }, token);
      client = await createClient(rs);
    });
    after(async () => opened.cleanup());

    test("fetch: same answer shape with a 20 MB blob as with a 4-char one; the RS answer stays small", async () => {
      seen.length = 0;
      const big = await call(client, "fetch", { id: `${conn}/attachments:big` });
      const tiny = await call(client, "fetch", { id: `${conn}/attachments:tiny` });
      assert.equal(big.isError, false, big.text);
      const stub = (size: number, digest: string) => ({
        binary: true,
        mime_type: "application/pdf",
        size_chars: size,
        digest,
      });
      const doc = (id: string, name: string, size: number, digest: string) =>
        JSON.parse(JSON.stringify({ file_id: id, name, blob: stub(size, digest), note: "n" })) as Record<
          string,
          unknown
        >;
      assert.deepEqual(
        JSON.parse(big.structured.text as string),
        doc("big", "Big scan", BIG_CHARS, BIG_DIGEST),
      );
      assert.deepEqual(
        JSON.parse(tiny.structured.text as string),
        doc("tiny", "Tiny scan", TINY.length, TINY_DIGEST),
      );
      const keys = (r: typeof big) => Object.keys(r.structured.metadata as object).sort();
      assert.deepEqual(keys(big), keys(tiny));
      assert.ok(big.text.length < 2_000, big.text);
      const reads = seen.filter((s) => s.path.startsWith("/v1/streams/attachments/records/"));
      assert.deepEqual(
        reads.map((s) => s.path),
        ["/v1/streams/attachments/records/big", "/v1/streams/attachments/records/tiny"],
      );
      // Not a byte of the blob crossed from the RS to the adapter (20,000,000 chars would).
      for (const s of reads) assert.ok(s.bytes < 2_000, `${s.path}${s.query}: ${s.bytes} bytes`);
    });

    test("query_records: the page carries the size, the ladder entry metadata and a handle, no bytes", async () => {
      seen.length = 0;
      const q = await call(client, "query_records", {
        stream: "attachments",
        filter: [{ field: "name", op: "eq", value: "Big scan" }],
      });
      assert.equal(q.isError, false, q.text);
      const rec = (q.structured.data as { data: { data: Record<string, unknown> }[] }).data[0];
      assert.deepEqual(rec.data.blob, {
        binary: true,
        mime_type: "application/pdf",
        size_chars: BIG_CHARS,
        digest: BIG_DIGEST,
      });
      const ladder = q.structured.content_ladder as {
        field: unknown;
        preview: unknown;
        continue?: unknown;
      }[];
      assert.deepEqual(
        ladder.map((e) => [e.field, e.preview, e.continue]),
        [
          [
            {
              path: "blob",
              type: "binary",
              text_like: false,
              size_chars: BIG_CHARS,
              mime_type: "application/pdf",
            },
            { status: "binary_only", start_chars: 0, end_chars: 0 },
            undefined,
          ],
        ],
      );
      assert.match(q.text, /"blob":"\[binary application\/pdf, 20000000 chars, not inlined\]"/);
      const list = seen.filter((s) => s.path === "/v1/streams/attachments/records");
      assert.equal(list.length, 1);
      assert.ok(list[0].bytes < 2_000, `${list[0].bytes} bytes`);
    });

    test("store reads: with preview_chars the blob is '' plus its size; without, the bytes; hidden stays hidden", async () => {
      const scope = scopeOf(conn, "all");
      const ref = { connectionId: conn, recordId: "big" };
      const preview = await store.getRecord(scope, ref, { previewChars: 64 });
      assert.equal(preview?.data.blob, "");
      assert.deepEqual(preview?.previews, {
        blob: { sizeChars: BIG_CHARS, digest: BIG_DIGEST, complete: false },
      });
      const page = await store.listRecords([scope], {
        conditions: [],
        sort: { field: "file_id", direction: "asc" },
        limit: 10,
        previewChars: 64,
      });
      assert.deepEqual(
        page.records.map((r) => [r.recordId, r.data.blob, r.previews]),
        [
          ["big", "", { blob: { sizeChars: BIG_CHARS, digest: BIG_DIGEST, complete: false } }],
          ["tiny", "", { blob: { sizeChars: TINY.length, digest: TINY_DIGEST, complete: false } }],
        ],
      );
      const full = await store.getRecord(scope, ref);
      assert.equal(String(full?.data.blob).length, BIG_CHARS);
      assert.equal(full?.previews, undefined);
      const narrow = scopeOf(conn, ["name"]);
      const hidden = await store.getRecord(narrow, ref, { previewChars: 64 });
      assert.deepEqual(hidden?.data, { file_id: "big", name: "Big scan" });
      assert.equal(hidden?.previews, undefined);
    });

    test("a nested binary field: kept in the store, and its parent object has no JSON window (it would carry the bytes)", async () => {
      const data = "iVBO".repeat(50_000);
      await store.applyBatch(conn, "attachments", [
        { op: "upsert", data: { file_id: "nested", name: "Nested", attachment: { name: "a.png", data } } },
      ]);
      const scope = scopeOf(conn, "all");
      const read = await store.getRecord(
        scope,
        { connectionId: conn, recordId: "nested" },
        { previewChars: 64 },
      );
      assert.deepEqual(read?.data.attachment, { name: "a.png", data: "" });
      assert.deepEqual(read?.previews, {
        "attachment.data": { sizeChars: data.length, digest: sha256Digest(data), complete: false },
      });
      const id = `${conn}/attachments:nested`;
      const f = await call(client, "fetch", { id });
      assert.deepEqual(JSON.parse(f.structured.text as string).attachment, {
        name: "a.png",
        data: { binary: true, mime_type: "image/png", size_chars: data.length, digest: sha256Digest(data) },
      });
      const parent = await call(client, "read_record_field", { id, field_path: "attachment" });
      assert.equal(parent.isError, true);
      assert.match(
        parent.text,
        /^error field_not_text: attachment holds the binary field attachment\.data; window its other fields by their own paths\./,
      );
      const name = await call(client, "read_record_field", { id, field_path: "attachment.name" });
      assert.equal(
        name.text,
        `${JSON.stringify({ id, field_path: "attachment.name", start: 0, end: 5, total: 5, complete: true, next_cursor: null, previous_cursor: null, match: null })}\na.png`,
      );
      const bytes = await call(client, "read_record_field", { id, field_path: "attachment.data" });
      assert.match(
        bytes.text,
        /^error field_not_text: attachment\.data is a binary field; it has no text windows\./,
      );
    });

    test("changes feed reads with preview_chars leave the bytes in the store too", async () => {
      const scope = scopeOf(conn, "all");
      const changes = await store.listChanges([scope], { afterVersion: 0, limit: 10, previewChars: 64 });
      const big = changes.records.find((r) => r.recordId === "big");
      assert.equal(big?.data.blob, "");
      assert.deepEqual(big?.previews, {
        blob: { sizeChars: BIG_CHARS, digest: BIG_DIGEST, complete: false },
      });
    });
  });
}

/** The scope a grant on the attachments stream with these fields resolves to. */
function scopeOf(conn: string, fields: "all" | string[]): StreamScope {
  return {
    connectorKey: "files",
    stream: FILES.streams[0],
    connectionIds: [conn],
    fields,
    since: null,
    until: null,
  };
}
