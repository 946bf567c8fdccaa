// Stores written before issue 18 (search rows of lowercased, unstemmed words; SQLite's FTS5
// tables with the unicode61 tokenizer) are re-indexed with pdpp's analysed terms on open: SQLite
// migration 11, Postgres migration 14. The old state is rebuilt by hand from a store, its
// migration row removed, and the store opened again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import type { StreamScope } from "../../src/core/grant.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";
import { CONNECTOR, MANIFEST, MESSAGES } from "./contract/fixtures.js";

const RECORDS = [
  {
    message_id: "a",
    subject: "Orbits of moons",
    body: "The planets were orbiting slowly.",
    sent_at: "2024-01-01T00:00:00Z",
  },
  {
    message_id: "b",
    subject: "Café notes",
    body: "Nothing about space here.",
    sent_at: "2024-01-02T00:00:00Z",
  },
];

async function load(store: Store): Promise<StreamScope> {
  await store.putManifest(MANIFEST);
  const conn = (await store.ensureConnection(CONNECTOR, "Mail")).connection_id;
  await store.applyBatch(
    conn,
    "messages",
    RECORDS.map((data) => ({ op: "upsert" as const, data })),
  );
  return {
    connectorKey: CONNECTOR,
    stream: MESSAGES,
    connectionIds: [conn],
    fields: "all",
    since: null,
    until: null,
  };
}

async function found(store: Store, scope: StreamScope, q: string): Promise<string[]> {
  const r = await store.search([scope], {
    clauses: parseSearchQuery(q),
    conditions: [],
    limit: 10,
    offset: 0,
    rankWindow: 100,
  });
  return r.hits.map((h) => h.recordId).sort();
}

async function expectAnalysed(store: Store, scope: StreamScope): Promise<void> {
  assert.deepEqual(await found(store, scope, "orbit"), ["a"]);
  assert.deepEqual(await found(store, scope, "cafe"), ["b"]);
  assert.deepEqual(await found(store, scope, "moon planet"), ["a"]);
}

test("SQLite: migration 11 makes the FTS tables anew and indexes analysed terms", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-upgrade-"));
  const path = join(dir, "pdpp.db");
  try {
    let store = await openSqliteStore({ path });
    const scope = await load(store);
    await store.close();
    // The old state: a unicode61 table holding lowercased words, migration 11 not applied.
    const raw = new Database(path);
    const name = raw.prepare("SELECT name FROM search_tables").pluck().get() as string;
    raw.exec(`DROP TABLE ${name};
      CREATE VIRTUAL TABLE ${name} USING fts5(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
        content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'");
      DELETE FROM schema_migrations WHERE version = 11;`);
    const ids = raw.prepare("SELECT id FROM records ORDER BY id").pluck().all() as number[];
    RECORDS.forEach((r, i) => {
      raw
        .prepare(`INSERT INTO ${name} (rowid, c0, c2) VALUES (?, ?, ?)`)
        .run(ids[i], r.subject.toLowerCase(), r.body.toLowerCase());
    });
    raw.close();
    store = await openSqliteStore({ path });
    await expectAnalysed(store, scope);
    await store.close();
    const check = new Database(path, { readonly: true });
    const sql = check.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(name) as string;
    check.close();
    assert.match(sql, /tokenize="ascii"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const url = pgTestUrl();
test("Postgres: migration 14 indexes every stream again with analysed terms", {
  skip: url ? false : "PDPP_TEST_PG_URL is not set",
}, async () => {
  const schema = newTestSchemaName();
  try {
    let store = await openPostgresStore({ url: url as string, schema });
    const scope = await load(store);
    await store.close();
    // The old state: lexemes of lowercased words, migration 14 not applied.
    const client = new pg.Client({ connectionString: url as string });
    await client.connect();
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(`UPDATE search_docs SET tsv = to_tsvector('simple', 'orbits moons')`);
    await client.query(`UPDATE search_lex SET tsv = to_tsvector('simple', 'orbits moons')`);
    await client.query("DELETE FROM schema_migrations WHERE version = 14");
    await client.end();
    store = await openPostgresStore({ url: url as string, schema });
    await expectAnalysed(store, scope);
    await store.close();
  } finally {
    await dropTestSchema(url as string, schema);
  }
});
