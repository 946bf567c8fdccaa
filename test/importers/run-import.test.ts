// The import runner end to end through the owner API into a real SQLite store: batching, counts,
// malformed items skipped with positions, idempotent re-import, per-record rejections mapped to positions.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MBOX_MANIFEST } from "../../src/importers/mbox-manifest.js";
import { openOwnerSink } from "../../src/importers/owner-sink.js";
import { runImport } from "../../src/importers/run-import.js";
import type { ImportItem } from "../../src/importers/types.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";

let app: OwnerApp;
before(async () => {
  app = await openOwnerApp();
});
after(async () => {
  await app.close();
});

function message(i: number, subject = `Subject ${i}`): Record<string, unknown> {
  return {
    message_id: `<m${i}@example.com>`,
    thread_id: `<m${i}@example.com>`,
    subject,
    from: "Alice <alice@example.com>",
    to: ["bob@example.com"],
    cc: [],
    sent_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    labels: ["Inbox"],
    body: `body ${i}`,
    size_bytes: 100 + i,
    attachments: [],
  };
}

async function* items(list: ImportItem[]): AsyncGenerator<ImportItem> {
  yield* list;
}

test("imports in batches, skips malformed items with their position, and re-import is all unchanged", async () => {
  const sink = await openOwnerSink(app.api, { manifest: MBOX_MANIFEST, connectionLabel: "Runner mail" });
  const list: ImportItem[] = [];
  for (let i = 1; i <= 23; i++) {
    if (i === 7)
      list.push({ error: "unparseable message: no header block found", position: "message 7 (byte 900)" });
    else list.push({ stream: "messages", data: message(i), position: `message ${i}` });
  }
  const progress: number[] = [];
  const first = await runImport({
    source: items(list),
    sink,
    batchSize: 5,
    onProgress: (p) => progress.push(p.read),
  });
  assert.deepEqual(
    { ...first, durationMs: 0 },
    {
      added: 22,
      updated: 0,
      unchanged: 0,
      rejected: 1,
      read: 22,
      batches: 5,
      perStream: { messages: { added: 22, updated: 0, unchanged: 0, rejected: 0 } },
      rejections: [
        { position: "message 7 (byte 900)", reason: "unparseable message: no header block found" },
      ],
      repaired: 0,
      repairs: [],
      durationMs: 0,
    },
  );
  assert.deepEqual(progress, [5, 6, 10, 15, 20, 22]);
  const counts = await app.store.countRecords({
    connectorKey: "mbox",
    stream: MBOX_MANIFEST.streams[0]!,
    connectionIds: [sink.connectionId],
    fields: "all",
    since: null,
    until: null,
  });
  assert.deepEqual(counts, { [sink.connectionId]: 22 });

  const again = await runImport({ source: items(list), sink, batchSize: 5 });
  assert.deepEqual([again.added, again.updated, again.unchanged, again.rejected], [0, 0, 22, 1]);

  const changed = list.map((item, i) =>
    "data" in item && i === 2 ? { ...item, data: message(3, "Subject 3 (edited)") } : item,
  );
  const third = await runImport({ source: items(changed), sink, batchSize: 100 });
  assert.deepEqual(
    [third.added, third.updated, third.unchanged, third.rejected, third.batches],
    [0, 1, 21, 1, 1],
  );
});

test("records the store rejects are reported with the position of the item", async () => {
  const sink = await openOwnerSink(app.api, { manifest: MBOX_MANIFEST, connectionLabel: "Rejects" });
  const list: ImportItem[] = [
    { stream: "messages", data: message(1), position: "message 1" },
    { stream: "messages", data: { ...message(2), message_id: "" }, position: "message 2" },
    { stream: "messages", data: { ...message(3), size_bytes: "big" }, position: "message 3" },
    { stream: "messages", data: message(4), position: "message 4" },
  ];
  const summary = await runImport({ source: items(list), sink, batchSize: 10 });
  assert.deepEqual([summary.added, summary.rejected], [2, 2]);
  assert.deepEqual(
    summary.rejections.map((r) => r.position),
    ["message 2", "message 3"],
  );
  assert.match(summary.rejections[0]!.reason, /message_id/);
  assert.match(summary.rejections[1]!.reason, /size_bytes/);
  assert.equal(summary.perStream.messages!.rejected, 2);
});

test("a sink failure (unknown stream) surfaces as a typed error, not a silent skip", async () => {
  const sink = await openOwnerSink(app.api, { manifest: MBOX_MANIFEST, connectionLabel: "Errors" });
  await assert.rejects(
    runImport({ source: items([{ stream: "nope", data: { message_id: "x" }, position: "p" }]), sink }),
    { code: "stream_not_found" },
  );
});
