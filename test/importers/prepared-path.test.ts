// Issue 19 (speed): every format's records can be prepared for the in-process SQLite store as they are
// read (prepared-items.ts, importFile prepareAsRead) instead of being serialized, parsed back and
// prepared inside applyBatch.
// For each format, on the benchmark's generated inputs (real layouts, bench/import-inputs.ts): an
// import and a re-import through both paths give the same summaries and byte-identical stored rows
// (records, texts, change stamps, search tables and what their FTS tables index).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BENCH_FORMATS, benchInput } from "../../bench/import-inputs.js";
import { importFile } from "../../src/importers/import-file.js";
import { findFormat } from "../../src/importers/registry.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";
import { dumpStore } from "../helpers-importers/store-dump.js";

const KINDS = ["claude-code", "codex", "claude", "chatgpt", "whatsapp", "ical", "takeout"];

function dump(path: string): Record<string, unknown[]> {
  return dumpStore(path, {
    tables: ["records", "text_fields", "text_chunks", "stamp_events", "search_tables", "stream_counts"],
    omit: ["connection_id"],
  });
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "pdpp-prepared-path-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const kind of KINDS) {
  test(`${kind}: records prepared as read (or in a worker thread) store exactly what applyBatch stores, import and re-import`, async () => {
    const path = await benchInput(kind, 0.1, dir);
    const apps: OwnerApp[] = [];
    try {
      // The path every import took before: JSON lines parsed back and prepared in applyBatch.
      const parsed = await openOwnerApp({ direct: true });
      parsed.api.ingestPrepared = undefined;
      const prepared = await openOwnerApp({ direct: true });
      apps.push(parsed, prepared);
      // The formats read in a worker thread: a third store, its records prepared there.
      const inWorker = findFormat(kind).readInWorker === true;
      if (inWorker) apps.push(await openOwnerApp({ direct: true }));
      // Every batch of the others takes the prepared path; none falls back to applyBatch.
      const preparedBatches = apps.slice(1).map((app) => {
        const applyPrepared = app.api.ingestPrepared!;
        const count = { batches: 0 };
        app.api.ingestPrepared = (...args) => {
          const result = applyPrepared(...args);
          if (result) count.batches++;
          return result;
        };
        app.api.ingest = () => assert.fail("a batch fell back to applyBatch");
        return count;
      });
      for (let round = 0; round < 2; round++) {
        const summaries = [];
        for (const [i, app] of apps.entries()) {
          const { durationMs, connectionId, ...summary } = await importFile(app.api, {
            kind,
            path,
            flags: BENCH_FORMATS[kind]!.flags,
            batchSize: 97, // several batches, some holding deletes beside upserts
            prepareAsRead: i === 1,
            prepareInWorker: i === 2,
            // Log folders skip unchanged files on the re-import: its state is read and written
            // on the main thread while the reading runs in the worker.
            stateDir: join(app.dir, "import-state"),
          });
          summaries.push(summary);
        }
        for (const summary of summaries.slice(1)) assert.deepEqual(summary, summaries[0]);
        const summary = summaries[0]!;
        assert.ok(summary.read > 50, `${kind} read ${summary.read}`);
        if (round === 1) assert.equal(summary.added, 0);
      }
      const stored = dump(join(parsed.dir, "pdpp.db"));
      assert.ok((stored.records?.length ?? 0) > 50);
      for (const count of preparedBatches) assert.ok(count.batches > 2, `${kind}: ${count.batches} batches`);
      if (kind !== "takeout") assert.ok((stored.text_fields?.length ?? 0) > 0);
      for (const app of apps.slice(1)) assert.deepEqual(dump(join(app.dir, "pdpp.db")), stored);
    } finally {
      for (const app of apps) await app.close();
    }
  });
}
