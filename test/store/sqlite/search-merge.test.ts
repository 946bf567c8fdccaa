// Issue 18 (search speed): the FTS tables an import wrote are merged into one segment when writes
// pause or the store closes (search-merge.ts). Merging must change no answer: a store written in
// many batches (adds, updates, deletes, two connections) answers every query — hits, order, scores,
// recall, unmatched terms, deeper pages, narrower scopes — exactly as before its index was merged.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { StreamScope } from "../../../src/core/grant.js";
import { parseSearchQuery } from "../../../src/core/search-query.js";
import { SqliteDb } from "../../../src/store/sqlite/db.js";
import { ftsRows, ftsSegments, SearchMerger } from "../../../src/store/sqlite/search-merge.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { IngestOp, Store } from "../../../src/store/store.js";
import { createRng } from "../../reliability/fixtures/prng.js";
import { CONNECTOR, MANIFEST, MESSAGES } from "../contract/fixtures.js";

const WORDS = ["invoice", "plumber", "garden", "river", "budget", "meeting", "orange", "ticket", "piano"];
const QUERIES = [
  "invoice",
  "plumber garden",
  "+river budget",
  "meeting -orange",
  '"budget meeting"',
  "gard*",
  "what did the plumber say about the invoice",
  "zanzibar",
];

/** 40 batches over two connections: new records, rewrites of earlier ones and deletions. */
function batches(seed: number): { conn: 0 | 1; ops: IngestOp[] }[] {
  const rng = createRng(seed);
  const words = (n: number) => Array.from({ length: n }, () => rng.pick(WORDS)).join(" ");
  const out: { conn: 0 | 1; ops: IngestOp[] }[] = [];
  for (let b = 0; b < 40; b++) {
    const ops: IngestOp[] = [];
    for (let i = 0; i < 25; i++) {
      const id = `m${rng.int(0, b * 25 + i)}`;
      if (rng.next() < 0.1) ops.push({ op: "delete", data: { message_id: id } });
      else
        ops.push({
          op: "upsert",
          data: {
            message_id: id,
            subject: words(3),
            from: `${rng.pick(["alice", "bob"])}@example.com`,
            sent_at: new Date(Date.UTC(2024, 0, 1) + rng.int(0, 1e9) * 1000).toISOString(),
            body: words(rng.int(5, 40)),
          },
        });
    }
    out.push({ conn: b % 2 === 0 ? 0 : 1, ops });
  }
  return out;
}

async function answers(store: Store, scopes: StreamScope[][]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const scope of scopes)
    for (const q of QUERIES)
      for (const [offset, rankWindow] of [
        [0, 1000],
        [0, 4],
        [5, 4],
      ])
        out.push(
          await store.search(scope, {
            clauses: parseSearchQuery(q),
            conditions: [],
            limit: 5,
            offset,
            rankWindow,
          }),
        );
  return out;
}

test("merging the written FTS tables into one segment changes no search answer", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-search-merge-"));
  const path = join(dir, "pdpp.db");
  try {
    // No idle merge while the answers before it are read: only close() merges here.
    let store = await openSqliteStore({ path, mergeIdleMs: 3_600_000 });
    await store.putManifest(MANIFEST);
    const conns = [
      (await store.ensureConnection(CONNECTOR, "A")).connection_id,
      (await store.ensureConnection(CONNECTOR, "B")).connection_id,
    ];
    for (const b of batches(18)) await store.applyBatch(conns[b.conn], "messages", b.ops);
    const scope = (connectionIds: string[], fields: StreamScope["fields"] = "all"): StreamScope => ({
      connectorKey: CONNECTOR,
      stream: MESSAGES,
      connectionIds,
      fields,
      since: null,
      until: null,
    });
    const scopes = [
      [scope(conns)],
      [scope([conns[0]])],
      [scope(conns, ["message_id", "subject", "sent_at"])],
    ];
    const before = await answers(store, scopes);
    // Sanity: the queries find things, and the index was left in several segments by the batches.
    assert.ok(JSON.stringify(before).includes("recordId"));
    const db = new SqliteDb(path);
    const table = db.raw.prepare("SELECT name FROM search_tables").pluck().get() as string;
    assert.ok(ftsSegments(db, table) > 1, `segments before: ${ftsSegments(db, table)}`);
    db.close();

    await store.close();
    const merged = new SqliteDb(path);
    assert.equal(ftsSegments(merged, table), 1);
    merged.close();
    store = await openSqliteStore({ path });
    assert.deepEqual(await answers(store, scopes), before);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a pause in writes merges the written tables; a small write into a big table waits", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-search-merge-idle-"));
  const path = join(dir, "pdpp.db");
  try {
    const store = await openSqliteStore({ path });
    await store.putManifest(MANIFEST);
    const conn = (await store.ensureConnection(CONNECTOR, "A")).connection_id;
    for (const b of batches(7)) await store.applyBatch(conn, "messages", b.ops);
    await store.close();
    // A merger of its own over the same file (the store's waits IDLE_MS), noting what was written.
    const db = new SqliteDb(path);
    const table = db.raw.prepare("SELECT name FROM search_tables").pluck().get() as string;
    assert.equal(ftsSegments(db, table), 1);
    const rows = ftsRows(db, table);
    assert.equal(rows, db.raw.prepare("SELECT count(*) FROM records WHERE deleted = 0").pluck().get());
    // Two new segments written outside the store, then noted as a write of 1 row: too small a
    // part of the table to rewrite it.
    for (let i = 0; i < 2; i++)
      db.raw.prepare(`INSERT INTO ${table} (rowid, c0) VALUES (?, 'invoice')`).run(BigInt(100_000 + i));
    assert.equal(ftsSegments(db, table), 3);
    const merger = new SearchMerger(db, 5);
    merger.wrote(CONNECTOR, "messages", 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(ftsSegments(db, table), 3);
    // Enough rows written: the pause merges them.
    merger.wrote(CONNECTOR, "messages", rows);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(ftsSegments(db, table), 1);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
