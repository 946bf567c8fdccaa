// Crash safety of NDJSON ingest (40-quality.md, reliability 3): kill -9 a child process mid-way
// through batched ingest into a SQLite file; the store reopens cleanly (integrity_check ok), holds
// only whole batches, and a re-run completes with no duplicates.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { spawnIngestChild } from "./fixtures/child-process.js";
import { openHarness } from "./fixtures/harness.js";

const BATCHES = 80;
const SIZE = 50;

function integrity(path: string): string {
  const db = new Database(path);
  try {
    return (db.pragma("integrity_check", { simple: true }) as string) ?? "";
  } finally {
    db.close();
  }
}

/** Every record id in the store, read page by page through the RS. */
async function allIds(path: string): Promise<{ ids: string[]; count: number }> {
  const store = await openSqliteStore({ path });
  try {
    const h = await openHarness(store);
    const ids: string[] = [];
    let cursor: string | null = null;
    let count = -1;
    do {
      const page = await h.request(
        `/v1/streams/notes/records?limit=100&count=exact${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      assert.equal(page.status, 200, page.text.slice(0, 300));
      count = page.json.meta.count;
      ids.push(...page.json.data.map((r: { record_id: string }) => r.record_id));
      cursor = page.json.has_more ? page.json.next_cursor : null;
    } while (cursor);
    return { ids, count };
  } finally {
    await store.close();
  }
}

test("kill -9 during NDJSON ingest leaves only whole batches; a re-run completes without duplicates", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-crash-"));
  const path = join(dir, "pdpp.db");
  try {
    const first = spawnIngestChild(path, BATCHES, SIZE);
    await first.waitFor(() => first.committed() >= 4);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 15)));
    first.child.kill("SIGKILL");
    const exit = await first.exit;
    assert.equal(exit.signal, "SIGKILL", `child was not killed: ${exit.stderr}`);
    const committed = first.committed();
    assert.ok(committed < BATCHES, "the child finished before the kill; the test proved nothing");

    assert.equal(integrity(path), "ok");
    const afterCrash = await allIds(path);
    assert.equal(afterCrash.count, afterCrash.ids.length);
    assert.equal(afterCrash.count % SIZE, 0, `a partial batch survived: ${afterCrash.count} records`);
    assert.ok(afterCrash.count >= committed * SIZE, "a committed batch was lost");
    assert.ok(afterCrash.count <= (committed + 1) * SIZE, "more batches than the child ever sent");
    const perBatch = new Map<string, number>();
    for (const id of afterCrash.ids) {
      const batch = id.split("-")[1];
      perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
    }
    for (const [batch, n] of perBatch) assert.equal(n, SIZE, `batch ${batch} holds ${n} of ${SIZE}`);

    const second = spawnIngestChild(path, BATCHES, SIZE);
    const done = await second.exit;
    assert.equal(done.code, 0, `re-run failed: ${done.stderr}`);
    const added = second.lines
      .filter((l) => l.startsWith("batch "))
      .reduce((n, l) => n + Number(l.split(" ")[3]), 0);
    assert.equal(added, BATCHES * SIZE - afterCrash.count, "the re-run re-added committed records");
    assert.equal(integrity(path), "ok");
    const final = await allIds(path);
    assert.equal(final.count, BATCHES * SIZE);
    assert.equal(new Set(final.ids).size, BATCHES * SIZE, "duplicates after the re-run");
    console.log(
      `ingest-crash: killed after ${committed} committed batches; store held ${afterCrash.count}; re-run added ${added}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
