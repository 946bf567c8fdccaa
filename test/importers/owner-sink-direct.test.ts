// The in-process owner sink (batches straight to the store's applyBatch) against the HTTP one (NDJSON
// through the RS route): the same summaries, the same rejections at the same positions, the same
// stored rows byte for byte, the same typed errors; and batches that close early on JSON size.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { MBOX_MANIFEST } from "../../src/importers/mbox-manifest.js";
import { type OwnerApi, openOwnerSink } from "../../src/importers/owner-sink.js";
import { runImport } from "../../src/importers/run-import.js";
import type { ImportItem } from "../../src/importers/types.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";

let overHttp: OwnerApp;
let inProcess: OwnerApp;
before(async () => {
  overHttp = await openOwnerApp();
  inProcess = await openOwnerApp();
});
after(async () => {
  await overHttp.close();
  await inProcess.close();
});

const direct = (app: OwnerApp): OwnerApi => ({
  ...app.api,
  ingest: (id, stream, ops) => app.store.applyBatch(id, stream, ops),
});

function message(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    message_id: `<m${i}@example.com>`,
    thread_id: `<t${i % 3}@example.com>`,
    subject: `Subject ${i}`,
    from: "Alice <alice@example.com>",
    to: ["bob@example.com"],
    sent_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    labels: ["Inbox"],
    body: `body ${i} ${"x".repeat(i * 7)}`,
    size_bytes: 100 + i,
    attachments: [],
    ...extra,
  };
}

/** Valid records, two the store rejects, values only JSON can carry (undefined, a Date, NaN). */
function batch(round: number): ImportItem[] {
  const list: ImportItem[] = [];
  for (let i = 1; i <= 40; i++) {
    let data = message(i, round === 2 && i % 10 === 0 ? { subject: `Edited ${i}` } : {});
    if (i === 5) data = { ...data, message_id: "" };
    if (i === 6) data = { ...data, size_bytes: "big" };
    if (i === 7) data = { ...data, cc: undefined, sent_at: new Date(Date.UTC(2024, 1, 2)) };
    if (i === 8) data = { ...data, size_bytes: Number.NaN };
    list.push({ stream: "messages", data, position: `message ${i}` });
  }
  return list;
}

async function* items(list: ImportItem[]): AsyncGenerator<ImportItem> {
  yield* list;
}

function storedRows(app: OwnerApp): unknown[] {
  const db = new Database(join(app.dir, "pdpp.db"), { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT r.record_id, r.payload, r.digest, r.time, r.version, r.deleted, t.path, t.digest AS text_digest FROM records r LEFT JOIN text_fields t ON t.record_row = r.id ORDER BY r.record_id",
      )
      .all();
    assert.ok(rows.length > 0);
    return rows;
  } finally {
    db.close();
  }
}

test("the in-process sink gives the HTTP sink's summaries, rejections and stored rows exactly", async () => {
  const httpSink = await openOwnerSink(overHttp.api, { manifest: MBOX_MANIFEST, connectionLabel: "Mail" });
  const directSink = await openOwnerSink(direct(inProcess), {
    manifest: MBOX_MANIFEST,
    connectionLabel: "Mail",
  });
  for (const round of [1, 1, 2]) {
    const viaHttp = await runImport({ source: items(batch(round)), sink: httpSink, batchSize: 16 });
    const viaStore = await runImport({ source: items(batch(round)), sink: directSink, batchSize: 16 });
    assert.deepEqual({ ...viaStore, durationMs: 0 }, { ...viaHttp, durationMs: 0 });
    assert.deepEqual(
      viaStore.rejections.map((r) => r.position),
      ["message 5", "message 6"],
    );
  }
  const last = await runImport({ source: items(batch(2)), sink: directSink });
  assert.deepEqual([last.added, last.updated, last.unchanged, last.rejected], [0, 0, 38, 2]);
  assert.deepEqual(storedRows(inProcess), storedRows(overHttp));
});

test("the in-process sink refuses an unknown stream with the same typed error", async () => {
  const sink = await openOwnerSink(direct(inProcess), { manifest: MBOX_MANIFEST, connectionLabel: "Errors" });
  await assert.rejects(
    runImport({ source: items([{ stream: "nope", data: { message_id: "x" }, position: "p" }]), sink }),
    { code: "stream_not_found" },
  );
});

test("a batch closes early once its records' JSON reaches batchChars", async () => {
  const sink = await openOwnerSink(direct(inProcess), { manifest: MBOX_MANIFEST, connectionLabel: "Sized" });
  const list: ImportItem[] = [];
  for (let i = 100; i < 110; i++) list.push({ stream: "messages", data: message(i), position: `m ${i}` });
  const one = JSON.stringify(message(100)).length;
  // Each record's JSON is at least `one` characters: three of them pass 3 × one − 1.
  const summary = await runImport({ source: items(list), sink, batchSize: 1000, batchChars: 3 * one - 1 });
  assert.deepEqual([summary.added, summary.batches], [10, 4]);
});
