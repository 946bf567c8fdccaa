// Issue 20 item 8 (002 tier 4): a binary field's ladder entry carries MIME type, size, digest and a
// pdpp://blob handle; resources/read returns its bytes as an MCP blob in bounded ranges, each naming
// the next, never inline in a tool result. Real SDK clients over hosted HTTP and a spawned stdio
// `pdpp mcp --provider-url`, on both stores; the adapter reads through the RS blob route, which is
// grant-checked like field windows (a hidden field or an out-of-grant record answers exactly what
// a missing one does).
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hashToken, newGrantId, newToken } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { blobUri } from "../../src/core/render/handles.js";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { createApp } from "../../src/rs/app.js";
import type { Store } from "../../src/store/store.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import { call } from "./helpers.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "pdpp.js");

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
          secret: { type: "string", contentMediaType: "image/png" },
        },
      },
      binary_fields: ["blob", "secret"],
      query: { exact_filters: ["name"] },
    },
    {
      // An exact filter reads this binary field, so the store keeps it inline in the payload.
      name: "thumbs",
      primary_key: ["thumb_id"],
      schema: {
        type: "object",
        properties: { thumb_id: { type: "string" }, png: { type: "string", contentMediaType: "image/png" } },
      },
      binary_fields: ["png"],
      query: { exact_filters: ["png"] },
    },
  ],
};
const PNG = randomBytes(30_000);

// 60,001 bytes: three ranges of at most 24,576, the last one partial; base64 padded ("=").
const BIG = randomBytes(60_001);
// 5 bytes stored unpadded (base64url alphabet): size_bytes must still be exact.
const TINY = Buffer.from([0xfb, 0xff, 0x00, 0x10, 0x7e]);
const digestOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

interface LadderEntry {
  field: { path: string; mime_type?: string; size_chars: number };
  preview: { status: string };
  resource_uri: string;
  digest?: string;
}

interface BlobHeader {
  id: string;
  field_path: string;
  mime_type: string;
  size_bytes: number;
  digest: string;
  start_bytes: number;
  end_bytes: number;
  complete: boolean;
  next_uri: string | null;
}

type Contents = { uri: string; mimeType?: string; blob?: string; text?: string; _meta?: unknown }[];

/** Read a blob resource to the end by its visible continuation; every range within the bound. */
async function readAll(client: Client, uri: string): Promise<{ bytes: Buffer; headers: BlobHeader[] }> {
  const parts: Buffer[] = [];
  const headers: BlobHeader[] = [];
  let next: string | null = uri;
  while (next) {
    const { contents } = (await client.readResource({ uri: next })) as { contents: Contents };
    assert.equal(contents.length, 2);
    const [blob, text] = contents;
    assert.equal(typeof blob.blob, "string");
    assert.equal(text.mimeType, "application/json");
    const header = JSON.parse(text.text ?? "") as BlobHeader;
    assert.deepEqual(blob._meta, header);
    assert.equal(blob.mimeType, header.mime_type);
    assert.ok(JSON.stringify(contents).length <= 40_000, `${JSON.stringify(contents).length} chars`);
    const bytes = Buffer.from(blob.blob ?? "", "base64");
    assert.equal(bytes.length, header.end_bytes - header.start_bytes);
    assert.equal(
      header.start_bytes,
      parts.reduce((n, p) => n + p.length, 0),
    );
    parts.push(bytes);
    headers.push(header);
    assert.equal(header.complete, header.next_uri === null);
    next = header.next_uri;
  }
  return { bytes: Buffer.concat(parts), headers };
}

async function readError(client: Client, uri: string): Promise<string> {
  try {
    await client.readResource({ uri });
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail(`${uri} was readable`);
}

for (const backend of testBackends()) {
  describe(`binary fields: blob resources in ranges (${backend.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    let conn: string;
    let hidden: string;
    let token: string;
    let url: string;
    let close: () => Promise<void>;
    const clients: { name: string; client: Client }[] = [];

    before(async () => {
      opened = await backend.open();
      store = opened.store;
      await store.putManifest(FILES);
      conn = (await store.ensureConnection("files", "Drive")).connection_id;
      hidden = (await store.ensureConnection("files", "Other drive")).connection_id;
      await store.applyBatch(conn, "attachments", [
        {
          op: "upsert",
          data: { file_id: "big", name: "Big scan", blob: BIG.toString("base64"), secret: "AAAA" },
        },
        { op: "upsert", data: { file_id: "tiny", name: "Tiny", blob: TINY.toString("base64url") } },
        { op: "upsert", data: { file_id: "bad", name: "Not base64", blob: "not base64!" } },
      ]);
      await store.applyBatch(conn, "thumbs", [
        { op: "upsert", data: { thumb_id: "t1", png: PNG.toString("base64") } },
      ]);
      await store.applyBatch(hidden, "attachments", [
        { op: "upsert", data: { file_id: "elsewhere", name: "Elsewhere", blob: "AAAA" } },
      ]);
      token = newToken("client");
      await store.createGrant({
        grant_id: newGrantId(),
        client_name: "blob-test",
        purpose: "tests",
        created_at: new Date().toISOString(),
        expires_at: null,
        revoked_at: null,
        streams: [
          {
            stream: "attachments",
            connector_key: "files",
            connections: [conn],
            fields: ["file_id", "name", "blob"],
          },
          { stream: "thumbs", connector_key: "files", connections: [conn], fields: "all" },
        ],
        token_hash: hashToken(token),
      });
      let app: ReturnType<typeof createApp> | undefined;
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve(
          {
            fetch: (r: Request) => (app as ReturnType<typeof createApp>).fetch(r),
            hostname: "127.0.0.1",
            port: 0,
          },
          () => resolve(s),
        );
      });
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const mcp = createHostedMcpHandler({
        rsFetch: (r, env) => (app as ReturnType<typeof createApp>).fetch(r, env),
      });
      app = createApp({ store, bindHost: "127.0.0.1", publicUrl: url, mcp });
      close = () => new Promise<void>((resolve) => server.close(() => resolve()));

      const http = new Client({ name: "blob-http", version: "1.0.0" });
      await http.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const stdio = new Client({ name: "blob-stdio", version: "1.0.0" });
      await stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "mcp", "--provider-url", url],
          env: { PDPP_TOKEN: token, PATH: process.env.PATH ?? "" },
          stderr: "pipe",
        }),
      );
      clients.push({ name: "http", client: http }, { name: "stdio", client: stdio });
    });
    after(async () => {
      for (const { client } of clients) await client.close();
      await close();
      await opened.cleanup();
    });

    test("the ladder entry names MIME type, size, digest and a blob handle; no bytes in either channel", async () => {
      for (const { name, client } of clients) {
        const q = await call(client, "query_records", { stream: "attachments", fields: ["blob"] });
        assert.equal(q.isError, false, `${name}: ${q.text}`);
        const ladder = q.structured.content_ladder as LadderEntry[];
        const big = ladder.find(
          (e) => e.resource_uri && (e as unknown as { record_id: string }).record_id === "big",
        );
        assert.ok(big, `${name}: ${JSON.stringify(ladder)}`);
        assert.equal(big.preview.status, "binary_only");
        assert.equal(big.field.mime_type, "application/pdf");
        assert.equal(big.field.size_chars, BIG.toString("base64").length);
        assert.equal(big.digest, digestOf(BIG.toString("base64")));
        assert.match(big.resource_uri, /^pdpp:\/\/blob\//);
        const all = q.text + JSON.stringify(q.structured);
        assert.ok(!all.includes(BIG.toString("base64").slice(0, 64)), `${name}: bytes inlined`);
        const f = await call(client, "fetch", { id: `${conn}/attachments:big` });
        assert.ok(!(f.text + JSON.stringify(f.structured)).includes(BIG.toString("base64").slice(0, 64)));
        // fetch names the same handle in metadata (its one text block carries the same object).
        const meta = f.structured.metadata as { binary_fields: Record<string, Record<string, unknown>> };
        assert.deepEqual(meta.binary_fields.blob, {
          mime_type: "application/pdf",
          size_chars: big.field.size_chars,
          digest: big.digest,
          resource_uri: big.resource_uri,
        });
      }
    });

    test("resources/read follows next_uri to the end: 3 ranges, bytes and digest verified", async () => {
      for (const { name, client } of clients) {
        const q = await call(client, "query_records", {
          stream: "attachments",
          filter: [{ field: "name", op: "eq", value: "Big scan" }],
        });
        const entry = (q.structured.content_ladder as LadderEntry[])[0];
        const { bytes, headers } = await readAll(client, entry.resource_uri);
        assert.equal(headers.length, 3, name);
        assert.deepEqual(
          headers.map((h) => [h.start_bytes, h.end_bytes]),
          [
            [0, 24_576],
            [24_576, 49_152],
            [49_152, 60_001],
          ],
        );
        for (const h of headers) {
          assert.equal(h.size_bytes, BIG.length);
          assert.equal(h.mime_type, "application/pdf");
          assert.equal(h.digest, entry.digest);
          assert.equal(h.id, `${conn}/attachments:big`);
        }
        assert.ok(bytes.equals(BIG), name);
        // The digest is the field digest: sha256 of the stored base64, re-derivable from the bytes.
        assert.equal(digestOf(bytes.toString("base64")), headers[0].digest);
      }
    });

    test("an unpadded base64url blob reads whole with its exact size", async () => {
      for (const { client } of clients) {
        const uri = blobUri({ c: conn, s: "attachments", r: "tiny", f: "blob", o: 0 });
        const { bytes, headers } = await readAll(client, uri);
        assert.ok(bytes.equals(TINY));
        assert.deepEqual(
          headers.map((h) => [h.size_bytes, h.start_bytes, h.end_bytes, h.complete]),
          [[5, 0, 5, true]],
        );
      }
    });

    test("a binary field kept inline (an exact filter reads it) reads the same in ranges", async () => {
      for (const { client } of clients) {
        const uri = blobUri({ c: conn, s: "thumbs", r: "t1", f: "png", o: 0 });
        const { bytes, headers } = await readAll(client, uri);
        assert.ok(bytes.equals(PNG));
        assert.deepEqual(
          headers.map((h) => [h.mime_type, h.size_bytes, h.end_bytes]),
          [
            ["image/png", 30_000, 24_576],
            ["image/png", 30_000, 30_000],
          ],
        );
        assert.equal(headers[0].digest, digestOf(PNG.toString("base64")));
      }
    });

    test("a hidden field, an out-of-grant record and a missing record: the same errors as missing ones", async () => {
      for (const { name, client } of clients) {
        const uri = (r: string, f: string, c = conn) => blobUri({ c, s: "attachments", r, f, o: 0 });
        const missingRecord = await readError(client, uri("nope", "blob"));
        assert.match(missingRecord, /record_not_found/, name);
        // A record on a connection outside the grant: as if the connection did not exist.
        const outOfGrant = await readError(client, uri("elsewhere", "blob", hidden));
        assert.match(outOfGrant, /connection_not_found/);
        assert.equal(await readError(client, uri("elsewhere", "blob", "cin_000000000000")), outOfGrant);
        // The hidden field answers the same whether or not the record holds it, or exists at all.
        const hiddenOnBig = await readError(client, uri("big", "secret"));
        assert.match(hiddenOnBig, /field_not_granted/);
        assert.equal(await readError(client, uri("tiny", "secret")), hiddenOnBig);
        assert.equal(await readError(client, uri("nope", "secret")), hiddenOnBig);
        assert.ok(!hiddenOnBig.includes("AAAA"));
        assert.match(
          await readError(client, uri("big", "name")),
          /field_not_binary: name is not a binary field/,
        );
        assert.match(
          await readError(client, uri("bad", "blob")),
          /field_not_binary: blob is not stored as base64/,
        );
        assert.match(await readError(client, "pdpp://blob/%%%"), /invalid_id/);
      }
    });

    test("a continuation after the blob changed answers stale_cursor, never a splice", async () => {
      const client = clients[0].client;
      const uri = blobUri({ c: conn, s: "attachments", r: "big", f: "blob", o: 0 });
      const { contents } = (await client.readResource({ uri })) as { contents: Contents };
      const next = (JSON.parse(contents[1].text ?? "") as BlobHeader).next_uri as string;
      const changed = Buffer.from(BIG);
      changed[0] ^= 0xff;
      await store.applyBatch(conn, "attachments", [
        {
          op: "upsert",
          data: { file_id: "big", name: "Big scan", blob: changed.toString("base64"), secret: "AAAA" },
        },
      ]);
      assert.match(await readError(client, next), /stale_cursor/);
      const again = await readAll(client, uri);
      assert.ok(again.bytes.equals(changed));
    });

    test("the RS route: unaligned ranges, limits and typed errors", async () => {
      const get = async (query: string) => {
        const res = await fetch(`${url}/v1/streams/attachments/records/tiny/blob?${query}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
      };
      const mid = await get("field=blob&offset_bytes=1&limit_bytes=3");
      assert.equal(mid.status, 200);
      assert.deepEqual(mid.body.range, {
        start_bytes: 1,
        end_bytes: 4,
        limit_bytes: 3,
        complete: false,
        next_offset_bytes: 4,
        data: TINY.subarray(1, 4).toString("base64"),
      });
      const end = await get("field=blob&offset_bytes=5");
      assert.deepEqual([end.body.range.data, end.body.range.complete], ["", true]);
      assert.equal((await get("field=blob&offset_bytes=6")).body.error.param, "offset_bytes");
      assert.equal((await get("field=blob&limit_bytes=24577")).status, 400);
      assert.equal((await get("field=blob&nope=1")).status, 400);
      assert.equal((await get("")).body.error.param, "field");
    });
  });
}
