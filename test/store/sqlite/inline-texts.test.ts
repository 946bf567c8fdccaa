// Issue 19 (speed): a text of one chunk is stored once, in its text_fields row, not in a text_chunks
// row beside it (text-store.ts). Every read — full and preview records, pages, field windows, match
// windows, search hits with their snippets — must give what it gave when every text had chunk rows:
// the same store read before and after its texts are rewritten to the old layout (as a database
// written before migration 12 holds them) answers alike, and a long text still goes to chunks.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest } from "../../../src/core/manifest.js";
import { parseSearchQuery } from "../../../src/core/search-query.js";
import { CHUNK_CHARS } from "../../../src/core/text-chunks.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../../src/store/store.js";

const NOTES: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      time_field: "at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          title: { type: "string" },
          body: { type: "string" },
          extra: { type: "object", properties: { note: { type: "string" } } },
        },
      },
      text_fields: ["body", "extra.note"],
      query: { search: ["title", "body", "extra.note"] },
    },
  ],
};

const LONG = `${"lorem ipsum 😀 ".repeat(Math.ceil((CHUNK_CHARS * 2) / 14))}needle at the end`;
const RECORDS = [
  { id: "short", at: "2024-01-01T00:00:00Z", title: "Short", body: "a needle 😀 in a short body" },
  { id: "nested", at: "2024-01-02T00:00:00Z", title: "Nested", body: "x", extra: { note: "needle inside" } },
  { id: "empty", at: "2024-01-03T00:00:00Z", title: "Empty", body: "" },
  { id: "long", at: "2024-01-04T00:00:00Z", title: "Long", body: LONG },
  { id: "edge", at: "2024-01-05T00:00:00Z", title: "Edge", body: "é".repeat(CHUNK_CHARS) },
];

/** The answer, or the error's message (a field the record lacks is an error on both layouts). */
async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    return await read();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function reads(store: Store, scope: StreamScope, connectionId: string): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const previewChars of [undefined, 10]) {
    const page = await store.listRecords([scope], {
      conditions: [],
      sort: { field: "at", direction: "asc" },
      limit: 10,
      previewChars,
    });
    out[`page ${previewChars}`] = page.records.map((r) => [r.recordId, r.data, r.previews]);
    for (const { id } of RECORDS) {
      const ref = { connectionId, recordId: id };
      const one = await store.getRecord(scope, ref, { previewChars });
      out[`get ${id} ${previewChars}`] = [one?.data, one?.previews];
    }
  }
  for (const { id } of RECORDS) {
    const ref = { connectionId, recordId: id };
    for (const path of ["body", "extra.note", "extra"]) {
      out[`range ${id} ${path}`] = await outcome(() =>
        store.readFieldWindow(scope, { ...ref, path }, { kind: "range", offsetChars: 3, limitChars: 40 }),
      );
      out[`match ${id} ${path}`] = await outcome(() =>
        store.readFieldWindow(
          scope,
          { ...ref, path },
          { kind: "match", q: "NEEDLE", beforeChars: 12, afterChars: 12, limitChars: 40 },
        ),
      );
    }
  }
  for (const q of ["needle", "lorem", "short body", "inside"]) {
    const result = await store.search([scope], {
      clauses: parseSearchQuery(q),
      conditions: [],
      limit: 10,
      offset: 0,
      rankWindow: 1000,
    });
    out[`search ${q}`] = result;
  }
  return out;
}

test("texts of one chunk stored inline read exactly as texts in chunk rows", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-inline-texts-"));
  const path = join(dir, "pdpp.db");
  try {
    let store = await openSqliteStore({ path });
    await store.putManifest(NOTES);
    const conn = (await store.ensureConnection("notes", "Mine")).connection_id;
    await store.applyBatch(
      conn,
      "notes",
      RECORDS.map((data) => ({ op: "upsert" as const, data })),
    );
    const scope: StreamScope = {
      connectorKey: "notes",
      stream: NOTES.streams[0]!,
      connectionIds: [conn],
      fields: "all",
      since: null,
      until: null,
    };
    const inline = (await reads(store, scope, conn)) as Record<string, unknown>;
    // The reads compared below do find the texts.
    const needle = inline["search needle"] as { hits: { recordId: string }[] };
    assert.deepEqual(needle.hits.map((h) => h.recordId).sort(), ["long", "nested", "short"]);
    assert.equal((inline["get short undefined"] as [{ body: string }])[0].body, RECORDS[0]!.body);
    assert.match(JSON.stringify(inline["match short body"]), /needle/);
    await store.close();

    const raw = new Database(path);
    const layout = raw
      .prepare(
        `SELECT r.record_id, f.path, f.chunk_count, f.text IS NOT NULL AS inline,
                (SELECT count(*) FROM text_chunks c WHERE c.record_row = f.record_row AND c.path = f.path) AS chunks
         FROM text_fields f JOIN records r ON r.id = f.record_row ORDER BY r.record_id, f.path`,
      )
      .all();
    assert.deepEqual(layout, [
      { record_id: "edge", path: "body", chunk_count: 1, inline: 1, chunks: 0 },
      { record_id: "empty", path: "body", chunk_count: 0, inline: 0, chunks: 0 },
      { record_id: "long", path: "body", chunk_count: 3, inline: 0, chunks: 3 },
      { record_id: "nested", path: "body", chunk_count: 1, inline: 1, chunks: 0 },
      { record_id: "nested", path: "extra.note", chunk_count: 1, inline: 1, chunks: 0 },
      { record_id: "short", path: "body", chunk_count: 1, inline: 1, chunks: 0 },
    ]);
    // The layout of a database written before migration 12: every text in chunk rows.
    raw.exec(`INSERT INTO text_chunks (record_row, path, seq, text)
                SELECT record_row, path, 0, text FROM text_fields WHERE text IS NOT NULL;
              UPDATE text_fields SET text = NULL;`);
    raw.close();
    store = await openSqliteStore({ path });
    const chunked = await reads(store, scope, conn);
    assert.deepEqual(chunked, inline);
    // Updates and deletes replace either layout's rows.
    await store.applyBatch(conn, "notes", [
      { op: "upsert", data: { ...RECORDS[0]!, body: "now a haystack" } },
      { op: "delete", data: { id: "nested" } },
    ]);
    const after = await store.getRecord(scope, { connectionId: conn, recordId: "short" });
    assert.equal(after?.data.body, "now a haystack");
    const hits = await store.search([scope], {
      clauses: parseSearchQuery("needle"),
      conditions: [],
      limit: 10,
      offset: 0,
      rankWindow: 1000,
    });
    assert.deepEqual(hits.hits.map((h) => h.recordId).sort(), ["long"]);
    await store.close();
    const check = new Database(path, { readonly: true });
    const rows = check
      .prepare(
        "SELECT (SELECT count(*) FROM text_chunks) AS chunks, (SELECT count(*) FROM text_fields WHERE text IS NOT NULL) AS inline",
      )
      .get();
    check.close();
    // long (3 chunks) and edge (its old-layout chunk) stay; short is inline again; nested is gone.
    assert.deepEqual(rows, { chunks: 4, inline: 1 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Migration 13: text_fields is a rowid table (its rows hold whole texts, and a WITHOUT ROWID row is
// its B-tree key, which made every seek read the texts' overflow pages). A database written with
// the earlier table is rebuilt on open and reads exactly as before; writes and deletes still work.
test("text_fields written as a WITHOUT ROWID table is rebuilt as a rowid table and reads alike", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-text-fields-rowid-"));
  const path = join(dir, "pdpp.db");
  try {
    let store = await openSqliteStore({ path });
    await store.putManifest(NOTES);
    const conn = (await store.ensureConnection("notes", "Mine")).connection_id;
    await store.applyBatch(
      conn,
      "notes",
      RECORDS.map((data) => ({ op: "upsert" as const, data })),
    );
    const scope: StreamScope = {
      connectorKey: "notes",
      stream: NOTES.streams[0]!,
      connectionIds: [conn],
      fields: "all",
      since: null,
      until: null,
    };
    await store.close();
    const tableSql = (db: Database.Database) =>
      db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'text_fields'")
        .pluck()
        .get() as string;
    const dump = (db: Database.Database) =>
      db.prepare("SELECT * FROM text_fields ORDER BY record_row, path").all();
    let raw = new Database(path);
    assert.doesNotMatch(tableSql(raw), /WITHOUT ROWID/i);
    // Back to the layout before migration 13.
    raw.exec(`CREATE TABLE text_fields_old (
        record_row INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        size_chars INTEGER NOT NULL,
        digest TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        text TEXT,
        PRIMARY KEY (record_row, path)
      ) WITHOUT ROWID;
      INSERT INTO text_fields_old SELECT record_row, path, size_chars, digest, chunk_count, text FROM text_fields;
      DROP TABLE text_fields;
      ALTER TABLE text_fields_old RENAME TO text_fields;
      DELETE FROM schema_migrations WHERE version = 13;`);
    const before = dump(raw);
    assert.match(tableSql(raw), /WITHOUT ROWID/i);
    raw.close();
    store = await openSqliteStore({ path });
    const old = await reads(store, scope, conn);
    await store.close();
    raw = new Database(path);
    assert.doesNotMatch(tableSql(raw), /WITHOUT ROWID/i);
    assert.deepEqual(dump(raw), before);
    raw.close();
    // Reads of the rebuilt table, then writes: an update replaces a row, a delete cascades.
    store = await openSqliteStore({ path });
    assert.deepEqual(await reads(store, scope, conn), old);
    await store.applyBatch(conn, "notes", [
      { op: "upsert", data: { ...RECORDS[0]!, body: "now a haystack" } },
      { op: "delete", data: { id: "nested" } },
    ]);
    const after = await store.getRecord(scope, { connectionId: conn, recordId: "short" });
    assert.equal(after?.data.body, "now a haystack");
    await store.close();
    raw = new Database(path, { readonly: true });
    const paths = raw
      .prepare(
        "SELECT r.record_id, f.path FROM text_fields f JOIN records r ON r.id = f.record_row ORDER BY r.record_id, f.path",
      )
      .all();
    raw.close();
    assert.deepEqual(paths, [
      { record_id: "edge", path: "body" },
      { record_id: "empty", path: "body" },
      { record_id: "long", path: "body" },
      { record_id: "short", path: "body" },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
