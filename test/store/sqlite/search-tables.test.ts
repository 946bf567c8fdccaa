// SQLite search index layout: one FTS table per (connector, stream), the version-1 shared index
// re-indexed on upgrade, and a changed search-field list never letting old columns match.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest, StreamDef } from "../../../src/core/manifest.js";
import { parseSearchQuery } from "../../../src/core/search-query.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../../src/store/store.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-search-tables-"));
  dirs.push(dir);
  return join(dir, "pdpp.db");
}

function notes(connectorKey: string, search: string[]): Manifest {
  return {
    connector_key: connectorKey,
    display_name: connectorKey,
    version: "1",
    streams: [
      {
        name: "notes",
        primary_key: ["id"],
        time_field: "at",
        title_field: "title",
        text_fields: ["body"],
        schema: {
          type: "object",
          properties: {
            id: { type: "string" },
            at: { type: "string", format: "date-time" },
            title: { type: "string" },
            body: { type: "string" },
            secret: { type: "string" },
          },
        },
        query: { search },
      },
    ],
  };
}

function scope(stream: StreamDef, connectorKey: string, connectionIds: string[]): StreamScope {
  return { connectorKey, stream, connectionIds, fields: "all", since: null, until: null };
}

async function ids(store: Store, scopes: StreamScope[], q: string): Promise<string[]> {
  const result = await store.search(scopes, {
    clauses: parseSearchQuery(q),
    conditions: [],
    limit: 10,
    offset: 0,
    rankWindow: 100,
  });
  return result.hits.map((h) => `${h.connectorKey}/${h.recordId}`);
}

test("streams of the same name in two connectors are searched separately and merged", async () => {
  const store = await openSqliteStore({ path: tempPath() });
  const a = notes("alpha", ["title", "body"]);
  const b = notes("beta", ["title", "body"]);
  await store.putManifest(a);
  await store.putManifest(b);
  const ca = (await store.ensureConnection("alpha", "a")).connection_id;
  const cb = (await store.ensureConnection("beta", "b")).connection_id;
  await store.applyBatch(ca, "notes", [
    { op: "upsert", data: { id: "a1", at: "2024-01-01T00:00:00Z", title: "kiwi", body: "orchard kiwi" } },
  ]);
  await store.applyBatch(cb, "notes", [
    { op: "upsert", data: { id: "b1", at: "2024-01-02T00:00:00Z", title: "kiwi", body: "orchard kiwi" } },
  ]);
  const sa = scope(a.streams[0], "alpha", [ca]);
  const sb = scope(b.streams[0], "beta", [cb]);
  assert.deepEqual(await ids(store, [sa], "kiwi"), ["alpha/a1"]);
  assert.deepEqual(await ids(store, [sb], "kiwi"), ["beta/b1"]);
  // Equal scores: newer first.
  assert.deepEqual(await ids(store, [sa, sb], "orchard kiwi"), ["beta/b1", "alpha/a1"]);
  await store.deleteConnection(cb);
  await store.ensureConnection("beta", "b");
  assert.deepEqual(await ids(store, [sa, sb], "kiwi"), ["alpha/a1"]);
  await store.close();
});

test("a version-1 database (one shared FTS table) is re-indexed on open", async () => {
  const path = tempPath();
  const manifest = notes("alpha", ["title", "body"]);
  let store = await openSqliteStore({ path });
  await store.putManifest(manifest);
  const c = (await store.ensureConnection("alpha", "a")).connection_id;
  await store.applyBatch(c, "notes", [
    {
      op: "upsert",
      data: {
        id: "n1",
        at: "2024-01-01T00:00:00Z",
        title: "plain",
        body: `long ${"x ".repeat(70_000)} quince`,
      },
    },
    { op: "upsert", data: { id: "n2", at: "2024-01-02T00:00:00Z", title: "quince jam", body: "sugar" } },
    { op: "upsert", data: { id: "n3", at: "2024-01-03T00:00:00Z", title: "gone", body: "quince" } },
  ]);
  await store.applyBatch(c, "notes", [{ op: "delete", data: { id: "n3" } }]);
  await store.close();
  // Turn it back into a version-1 database: shared table, no per-stream tables.
  const raw = new Database(path);
  for (const { name } of raw.prepare("SELECT name FROM search_tables").all() as { name: string }[])
    raw.exec(`DROP TABLE ${name}`);
  raw.exec(`DROP TABLE search_tables;
    CREATE VIRTUAL TABLE search_index USING fts5(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
      content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'");
    DELETE FROM schema_migrations WHERE version = 2;`);
  raw.close();
  store = await openSqliteStore({ path });
  const s = scope(manifest.streams[0], "alpha", [c]);
  assert.deepEqual((await ids(store, [s], "quince")).sort(), ["alpha/n1", "alpha/n2"]);
  assert.deepEqual(await ids(store, [s], "sugar"), ["alpha/n2"]);
  await store.close();
  const check = new Database(path, { readonly: true });
  const tables = check.prepare("SELECT name FROM sqlite_master WHERE name = 'search_index'").all();
  const versions = check.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all();
  check.close();
  assert.deepEqual(tables, []);
  // Version 2 ran again; later migrations (OAuth, re-index, owner web) are there too and not this test's concern.
  assert.deepEqual(
    versions.filter((v) => (v as number) <= 2),
    [1, 2],
  );
});

test("after the search-field list changes, old rows' columns never match outside their field", async () => {
  const store = await openSqliteStore({ path: tempPath() });
  const before = notes("alpha", ["title", "secret"]);
  await store.putManifest(before);
  const c = (await store.ensureConnection("alpha", "a")).connection_id;
  await store.applyBatch(c, "notes", [
    { op: "upsert", data: { id: "old", at: "2024-01-01T00:00:00Z", title: "walnut", secret: "zebra" } },
  ]);
  const now = notes("alpha", ["title"]);
  await store.putManifest(now);
  await store.applyBatch(c, "notes", [
    { op: "upsert", data: { id: "new", at: "2024-01-02T00:00:00Z", title: "walnut", secret: "zebra" } },
  ]);
  const s = scope(now.streams[0], "alpha", [c]);
  assert.deepEqual(await ids(store, [s], "zebra"), []);
  assert.deepEqual(await ids(store, [s], "walnut"), ["alpha/new", "alpha/old"]);
  await store.close();
});

test("equal scores across streams page exactly in time, connection, record order", async () => {
  const store = await openSqliteStore({ path: tempPath() });
  const a = notes("alpha", ["title"]);
  const b = notes("beta", ["title"]);
  await store.putManifest(a);
  await store.putManifest(b);
  const ca = (await store.ensureConnection("alpha", "a")).connection_id;
  const cb = (await store.ensureConnection("beta", "b")).connection_id;
  const day = (i: number) => `2024-01-${String(1 + (i % 9)).padStart(2, "0")}T00:00:00.000Z`;
  const ops = (prefix: string) =>
    Array.from({ length: 20 }, (_, i) => ({
      op: "upsert" as const,
      data: { id: `${prefix}${String(i).padStart(2, "0")}`, at: day(i), title: "same words" },
    }));
  await store.applyBatch(ca, "notes", ops("a"));
  await store.applyBatch(cb, "notes", ops("b"));
  const scopes = [scope(a.streams[0], "alpha", [ca]), scope(b.streams[0], "beta", [cb])];
  const expected = [
    ...ops("a").map((o) => ({ c: ca, ...o.data })),
    ...ops("b").map((o) => ({ c: cb, ...o.data })),
  ]
    .sort((x, y) =>
      x.at !== y.at ? (x.at < y.at ? 1 : -1) : x.c !== y.c ? (x.c < y.c ? -1 : 1) : x.id < y.id ? -1 : 1,
    )
    .map((r) => `${r.c}/${r.id}`);
  const seen: string[] = [];
  for (let offset = 0; ; offset += 7) {
    const page = await store.search(scopes, {
      clauses: parseSearchQuery("same"),
      conditions: [],
      limit: 7,
      offset,
      rankWindow: 100,
    });
    seen.push(...page.hits.map((h) => `${h.connectionId}/${h.recordId}`));
    assert.equal(page.hasMore, offset + 7 < 40);
    if (!page.hasMore) break;
  }
  assert.deepEqual(seen, expected);
  await store.close();
});
