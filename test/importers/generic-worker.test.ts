// Generic imports prepared in a worker thread (generic-worker.ts) against the same imports prepared on
// the main thread: the same summaries, rejections and positions, and the same stored rows byte for byte
// (records, versions, digests, stamps, text chunks, FTS index); a changed stream definition falls back
// to applyBatch; a worker failure is the same typed error; stopping early ends the worker.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PdppError } from "../../src/core/errors.js";
import type { Manifest } from "../../src/core/manifest.js";
import type { GenericSource } from "../../src/importers/generic.js";
import { survivesJson } from "../../src/importers/generic-prepare.js";
import { openGenericWorkerSource } from "../../src/importers/generic-worker-source.js";
import { importFile } from "../../src/importers/import-file.js";
import { openJsonlSource } from "../../src/importers/jsonl.js";
import type { OwnerApi } from "../../src/importers/owner-sink.js";
import { preparedIngestOf } from "../../src/store/sqlite/sqlite-store.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";
import { dumpStore } from "../helpers-importers/store-dump.js";

const MANIFEST: Manifest = {
  connector_key: "jsonl.notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      cursor_field: "at",
      time_field: "at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          title: { type: "string" },
          body: { type: "string" },
          score: { type: "number" },
          meta: { type: "object", properties: { tag: { type: "string" } } },
        },
      },
      text_fields: ["body"],
      query: { search: ["title", "body", "meta.tag"], exact_filters: ["title"] },
    },
  ],
};

/** Lines covering every path: valid, malformed, rejected by the store, overflowing numbers, -0, repeats. */
function lines(round: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < 60; i++) {
    const record: Record<string, unknown> = {
      id: `n${i % 50}`, // ids 0..9 twice: later lines update earlier ones, within and across batches
      at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      title: `Note ${i} ${round === 2 && i % 7 === 0 ? "edited" : ""} Çà`,
      body: i % 50 === 3 ? `long ${"word ".repeat(20_000)}` : `body ${i} über`,
      score: i,
      meta: { tag: `t${i % 3}` },
    };
    if (i === 4) out.push("{not json");
    if (i === 5) out.push("[1, 2]");
    if (i === 6) record.score = "high";
    if (i === 8) record.title = "nul \u0000 inside";
    if (i === 9) record.at = "not a time";
    out.push(JSON.stringify(record));
    if (i === 10) out.push(`{"id":"big","at":"2024-02-01T00:00:00.000Z","score":1e400}`);
    if (i === 11) out.push(`{"id":"neg","at":"2024-02-01T00:00:00.000Z","score":-0,"title":-0}`);
    if (i === 12) out.push(`{"id":"proto","__proto__":{"x":1},"title":"p"}`);
    if (i === 13) out.push("");
  }
  return out;
}

function dump(path: string): Record<string, unknown[]> {
  return dumpStore(path, {
    tables: ["records", "text_fields", "text_chunks", "stamp_events", "search_tables"],
    omit: [],
  });
}

async function importInto(
  app: OwnerApp,
  path: string,
  options: { inWorker: boolean; api?: (api: OwnerApi) => OwnerApi },
) {
  const base: OwnerApi = {
    ...app.api,
    ingest: (id, stream, ops) => app.store.applyBatch(id, stream, ops),
    ingestPrepared: preparedIngestOf(app.store),
  };
  const result = await importFile(options.api ? options.api(base) : base, {
    kind: "jsonl",
    path,
    connectionLabel: "Notes",
    generic: { manifest: MANIFEST },
    batchSize: 7,
    prepareInWorker: options.inWorker,
  });
  const { durationMs, ...rest } = result;
  return rest;
}

function withDir(run: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-generic-worker-"));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  "jsonl prepared in a worker: same summaries, rejections and stored rows as on the main thread, over an import and a re-import",
  withDir(async (dir) => {
    const first = join(dir, "notes-1.jsonl");
    const second = join(dir, "notes-2.jsonl");
    writeFileSync(first, `${lines(1).join("\n")}\n`);
    writeFileSync(second, lines(2).join("\r\n"));
    const mainThread = await openOwnerApp();
    const worker = await openOwnerApp();
    try {
      for (const [round, path] of [first, second].entries()) {
        const expected = await importInto(mainThread, path, { inWorker: false });
        let applied = 0;
        const actual = await importInto(worker, path, {
          inWorker: true,
          api: (api) => ({
            ...api,
            ingestPrepared: (id, stream, batch) => {
              applied += batch.ops.length;
              return api.ingestPrepared!(id, stream, batch);
            },
          }),
        });
        assert.equal(applied, expected.added + expected.updated + expected.unchanged);
        assert.deepEqual(actual, expected);
        assert.equal(expected.rejected, 5, `rejections: ${JSON.stringify(expected.rejections)}`);
        // The NUL in line 11's title is stored as U+FFFD, on both paths, and reported.
        assert.deepEqual([expected.repaired, expected.repairs[0]?.position], [1, "line 11"]);
        if (round === 0)
          assert.equal(expected.added, 50 + 2); // ids n0..n49, big and proto
        else assert.ok(expected.updated > 0 && expected.unchanged > 0);
      }
      const stored = dump(join(mainThread.dir, "pdpp.db"));
      // Short bodies live in their text_fields row; the long one (n3) in chunks.
      assert.ok(
        stored.text_fields!.length >= 50 &&
          stored.search_fts_1_data!.length > 0 &&
          stored["search_fts_1 (indexed terms)"]!.length >= 50,
      );
      assert.ok(stored.text_chunks!.length >= 2);
      assert.ok(stored.stamp_events!.length > 0);
      assert.deepEqual(dump(join(worker.dir, "pdpp.db")), stored);
    } finally {
      await mainThread.close();
      await worker.close();
    }
  }),
);

test(
  "a stream definition changed since the worker prepared: the batch goes through applyBatch, same result",
  withDir(async (dir) => {
    const path = join(dir, "notes.jsonl");
    writeFileSync(path, lines(1).join("\n"));
    const mainThread = await openOwnerApp();
    const worker = await openOwnerApp();
    try {
      let refused = 0;
      const expected = await importInto(mainThread, path, { inWorker: false });
      const actual = await importInto(worker, path, {
        inWorker: true,
        api: (api) => ({
          ...api,
          ingestPrepared: (id, stream, batch) => {
            const answer = api.ingestPrepared!(id, stream, { ...batch, defKey: `${batch.defKey} ` });
            if (answer === null) refused++;
            return answer;
          },
        }),
      });
      assert.ok(refused > 0);
      assert.deepEqual(actual, expected);
      assert.deepEqual(dump(join(worker.dir, "pdpp.db")), dump(join(mainThread.dir, "pdpp.db")));
    } finally {
      await mainThread.close();
      await worker.close();
    }
  }),
);

test(
  "worker source: a file gone before the worker reads it is the same typed error; stopping early ends the worker",
  withDir(async (dir) => {
    const path = join(dir, "notes.jsonl");
    writeFileSync(path, `${lines(1).join("\n")}\n`.repeat(100));
    const early = openGenericWorkerSource(
      (await openJsonlSource(path, { manifest: MANIFEST })) as GenericSource,
    );
    let seen = 0;
    for await (const _ of early.items) if (++seen === 3) break;
    assert.equal(seen, 3);

    const gone = (await openJsonlSource(path, { manifest: MANIFEST })) as GenericSource;
    rmSync(path);
    await assert.rejects(
      async () => {
        for await (const _ of openGenericWorkerSource(gone).items) {
          // never reached
        }
      },
      (error: unknown) => error instanceof PdppError && error.code === "invalid_request",
    );
  }),
);

test("survivesJson: only values a JSON round trip gives back", () => {
  assert.equal(survivesJson({ a: [1, "x", null, true, { b: -0 }] }), true);
  assert.equal(survivesJson({ a: Number.POSITIVE_INFINITY }), false);
  assert.equal(survivesJson({ a: [Number.NaN] }), false);
  assert.equal(survivesJson({ a: undefined }), false);
  assert.equal(survivesJson({ a: new Date(0) }), false);
  assert.equal(survivesJson(JSON.parse('{"__proto__":{"x":1}}')), true);
});
