// Issue 9 item 7, storage side: a binary field lives in chunk rows, not in the payload JSON, so a
// preview read never touches its bytes (a fetch of a record with a 20 MB blob costs what one
// without it does). Rows stored before binary fields moved out still hold them inline and must
// read the same; a binary field that a query reads (here an exact filter) stays inline.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import type { StreamScope } from "../../src/core/grant.js";
import { sha256Digest } from "../../src/core/ids.js";
import { chunkedFields, type Manifest } from "../../src/core/manifest.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";

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
          thumb: { type: "string", contentMediaType: "image/png" },
        },
      },
      binary_fields: ["blob", "thumb"],
      query: { exact_filters: ["thumb"] },
    },
  ],
};
const BLOB = "QUJD".repeat(500_000); // 2,000,000 chars

/** Raw SQL on the store's own database, to look at (and, for the legacy case, rewrite) rows. */
interface Raw {
  payloadChars(recordId: string): Promise<number>;
  /** Put the blob back inline and drop its chunk rows, as a row stored before the change was. */
  makeLegacy(recordId: string, blob: string): Promise<void>;
  stampedPaths(recordId: string): Promise<string[]>;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  open(): Promise<{ store: Store; raw: Raw; cleanup(): Promise<void> }>;
}

const sqlite: Backend = {
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-binary-"));
    const path = join(dir, "pdpp.db");
    const store = await openSqliteStore({ path });
    const db = new Database(path);
    const rowOf = (recordId: string) =>
      (db.prepare("SELECT id FROM records WHERE record_id = ?").get(recordId) as { id: number }).id;
    const raw: Raw = {
      async payloadChars(recordId) {
        return (
          db.prepare("SELECT length(payload) AS n FROM records WHERE record_id = ?").get(recordId) as {
            n: number;
          }
        ).n;
      },
      async makeLegacy(recordId, blob) {
        const row = rowOf(recordId);
        db.prepare("UPDATE records SET payload = json_set(payload, '$.blob', ?) WHERE id = ?").run(blob, row);
        db.prepare("DELETE FROM text_chunks WHERE record_row = ? AND path = 'blob'").run(row);
        db.prepare("DELETE FROM text_fields WHERE record_row = ? AND path = 'blob'").run(row);
      },
      async stampedPaths(recordId) {
        const { stamps } = db.prepare("SELECT stamps FROM records WHERE record_id = ?").get(recordId) as {
          stamps: string | null;
        };
        return Object.keys(JSON.parse(stamps ?? "{}")).sort();
      },
      async close() {
        db.close();
      },
    };
    return {
      store,
      raw,
      async cleanup() {
        db.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgres(url: string): Backend {
  return {
    name: "postgres",
    async open() {
      const schema = newTestSchemaName();
      const store = await openPostgresStore({ url, schema });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`SET search_path TO "${schema}"`);
      const raw: Raw = {
        async payloadChars(recordId) {
          const { rows } = await client.query(
            "SELECT length(payload::text) AS n FROM records WHERE record_id = $1",
            [recordId],
          );
          return Number(rows[0].n);
        },
        async makeLegacy(recordId, blob) {
          const { rows } = await client.query("SELECT rid FROM records WHERE record_id = $1", [recordId]);
          const rid = rows[0].rid as string;
          await client.query(
            "UPDATE records SET payload = jsonb_set(payload, '{blob}', to_jsonb($1::text)) WHERE rid = $2",
            [blob, rid],
          );
          await client.query("DELETE FROM text_fields WHERE rid = $1 AND path = 'blob'", [rid]);
        },
        async stampedPaths(recordId) {
          const { rows } = await client.query("SELECT stamps FROM records WHERE record_id = $1", [recordId]);
          return Object.keys((rows[0].stamps as Record<string, unknown> | null) ?? {}).sort();
        },
        async close() {},
      };
      return {
        store,
        raw,
        async cleanup() {
          await client.end();
          await store.close();
          await dropTestSchema(url, schema);
        },
      };
    },
  };
}

const url = pgTestUrl();
const backends = url ? [sqlite, postgres(url)] : [sqlite];
if (!url) test("postgres half of binary-layout.test.ts", { skip: "PDPP_TEST_PG_URL is not set" }, () => {});

test("chunkedFields: text fields, then binary fields no query or role reads inline", () => {
  assert.deepEqual(chunkedFields(FILES.streams[0]), ["blob"]);
  const withText = { ...FILES.streams[0], text_fields: ["name"], binary_fields: ["blob", "name"] };
  assert.deepEqual(chunkedFields(withText), ["name", "blob"]);
});

for (const backend of backends) {
  describe(`binary fields out of the payload (${backend.name})`, () => {
    let store: Store;
    let raw: Raw;
    let cleanup: () => Promise<void>;
    let conn: string;
    const scope = (): StreamScope => ({
      connectorKey: "files",
      stream: FILES.streams[0],
      connectionIds: [conn],
      fields: "all",
      since: null,
      until: null,
    });

    before(async () => {
      ({ store, raw, cleanup } = await backend.open());
      await store.putManifest(FILES);
      conn = (await store.ensureConnection("files", "Drive")).connection_id;
      await store.applyBatch(conn, "attachments", [
        { op: "upsert", data: { file_id: "new", name: "New", blob: BLOB, thumb: "iVBO" } },
        { op: "upsert", data: { file_id: "old", name: "Old", blob: BLOB, thumb: "iVBO" } },
      ]);
    });
    after(async () => cleanup());

    test("the payload row holds no blob bytes; reads give '' plus the size, or the whole value", async () => {
      assert.ok((await raw.payloadChars("new")) < 200, `payload of ${await raw.payloadChars("new")} chars`);
      const ref = { connectionId: conn, recordId: "new" };
      const preview = await store.getRecord(scope(), ref, { previewChars: 64 });
      assert.deepEqual(preview?.data, { file_id: "new", name: "New", blob: "", thumb: "" });
      assert.deepEqual(preview?.previews, {
        blob: { sizeChars: BLOB.length, digest: sha256Digest(BLOB), complete: false },
        thumb: { sizeChars: 4, complete: false },
      });
      const full = await store.getRecord(scope(), ref);
      assert.equal(full?.data.blob, BLOB);
      assert.equal(full?.previews, undefined);
    });

    test("a binary field an exact filter reads stays inline and still filters", async () => {
      const page = await store.listRecords([scope()], {
        conditions: [{ field: "thumb", op: "eq", value: "iVBO" }],
        sort: { field: "file_id", direction: "asc" },
        limit: 10,
      });
      assert.deepEqual(
        page.records.map((r) => r.recordId),
        ["new", "old"],
      );
    });

    test("a row stored with the blob inline reads the same and its next update stamps only what changed", async () => {
      await raw.makeLegacy("old", BLOB);
      assert.ok((await raw.payloadChars("old")) > BLOB.length);
      const ref = { connectionId: conn, recordId: "old" };
      const preview = await store.getRecord(scope(), ref, { previewChars: 64 });
      assert.deepEqual(preview?.data, { file_id: "old", name: "Old", blob: "", thumb: "" });
      assert.deepEqual(preview?.previews, {
        blob: { sizeChars: BLOB.length, complete: false },
        thumb: { sizeChars: 4, complete: false },
      });
      const page = await store.listRecords([scope()], {
        conditions: [],
        sort: { field: "file_id", direction: "asc" },
        limit: 10,
        previewChars: 64,
      });
      assert.deepEqual(
        page.records.map((r) => [r.recordId, r.data.blob, r.previews]),
        [
          [
            "new",
            "",
            {
              blob: { sizeChars: BLOB.length, digest: sha256Digest(BLOB), complete: false },
              thumb: { sizeChars: 4, complete: false },
            },
          ],
          [
            "old",
            "",
            { blob: { sizeChars: BLOB.length, complete: false }, thumb: { sizeChars: 4, complete: false } },
          ],
        ],
      );
      assert.equal((await store.getRecord(scope(), ref))?.data.blob, BLOB);
      const result = await store.applyBatch(conn, "attachments", [
        { op: "upsert", data: { file_id: "old", name: "Old, renamed", blob: BLOB, thumb: "iVBO" } },
      ]);
      assert.equal(result.updated, 1);
      assert.deepEqual(await raw.stampedPaths("old"), ["name"]);
      assert.ok((await raw.payloadChars("old")) < 200);
      assert.equal((await store.getRecord(scope(), ref))?.data.blob, BLOB);
    });
  });
}
