// Read during write (40-quality.md, reliability 4): while batches of N records are ingested,
// concurrent readers (list count=exact, aggregate count) only ever see whole batches — in process
// on every backend, and from a second process on the same SQLite file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { testBackends } from "../helpers/backends.js";
import { spawnIngestChild } from "./fixtures/child-process.js";
import { type Harness, openHarness } from "./fixtures/harness.js";
import { NOTES_MANIFEST, note } from "./fixtures/notes-dataset.js";

const BATCH = 150;
const BATCHES = 12;

/** Both counting reads; returns [list count, aggregate count]. */
async function counts(h: Harness, connection?: string): Promise<number[]> {
  const scope = connection ? `&connection_id=${connection}` : "";
  const [list, agg] = await Promise.all([
    h.request(`/v1/streams/notes/records?limit=1&count=exact${scope}`),
    h.request(`/v1/streams/notes/aggregate?metric=count${scope}`),
  ]);
  if (list.status === 404 || agg.status === 404) return [0, 0]; // the stream is not registered yet
  assert.equal(list.status, 200, list.text);
  assert.equal(agg.status, 200, agg.text);
  return [list.json.meta.count, agg.json.value];
}

for (const backend of testBackends()) {
  test(`readers see only whole batches while ingest runs on ${backend.name}`, async () => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      await h.registerManifest(NOTES_MANIFEST);
      const conn = await h.createConnection("notes", "Live");
      let writing = true;
      const writer = (async () => {
        for (let b = 0; b < BATCHES; b++) {
          const lines = Array.from({ length: BATCH }, (_, i) => ({ op: "upsert", data: note(i, b) }));
          const answer = await h.ingest(conn, "notes", lines);
          assert.equal(answer.json.added, BATCH);
        }
        writing = false;
      })();
      const seen: number[] = [];
      const reader = async () => {
        // Per endpoint: the two reads of one round run concurrently, so they may straddle a commit.
        const last = [0, 0];
        while (writing) {
          const round = await counts(h, conn);
          round.forEach((n, i) => {
            assert.equal(n % BATCH, 0, `a reader saw ${n} records: a half-applied batch`);
            assert.ok(n >= last[i], `count went backwards ${last[i]} → ${n}`);
            last[i] = n;
            seen.push(n);
          });
        }
      };
      await Promise.all([writer, reader(), reader(), reader()]);
      assert.deepEqual(await counts(h, conn), [BATCH * BATCHES, BATCH * BATCHES]);
      console.log(
        `read-during-write ${backend.name}: ${seen.length} reads, distinct counts ${new Set(seen).size}`,
      );
    } finally {
      await opened.cleanup();
    }
  });
}

test("a second process reading the same SQLite file sees only whole batches", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-rdw-"));
  const path = join(dir, "pdpp.db");
  const SIZE = 50;
  const child = spawnIngestChild(path, 40, SIZE);
  try {
    await child.waitFor(() => child.lines.some((l) => l.startsWith("ready")));
    const store = await openSqliteStore({ path });
    try {
      const h = await openHarness(store);
      const seen = new Set<number>();
      let reads = 0;
      while (child.child.exitCode === null) {
        for (const n of await counts(h)) {
          assert.equal(n % SIZE, 0, `the reader saw ${n} records: a half-applied batch`);
          seen.add(n);
          reads += 1;
        }
        await new Promise((r) => setImmediate(r));
      }
      const exit = await child.exit;
      assert.equal(exit.code, 0, exit.stderr);
      assert.deepEqual(await counts(h), [40 * SIZE, 40 * SIZE]);
      assert.ok(seen.size >= 2, "the reader never overlapped the writer; the test proved nothing");
      console.log(`read-during-write cross-process: ${reads} reads, ${seen.size} distinct counts`);
    } finally {
      await store.close();
    }
  } finally {
    if (child.child.exitCode === null) child.child.kill("SIGKILL");
    await child.exit;
    rmSync(dir, { recursive: true, force: true });
  }
});
