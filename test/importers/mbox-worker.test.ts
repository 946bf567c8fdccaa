// The worker-thread mbox source yields the same records, positions and errors as the in-thread reader.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PdppError } from "../../src/core/errors.js";
import { openMboxSource } from "../../src/importers/mbox.js";
import { openMboxWorkerSource } from "../../src/importers/mbox-worker-source.js";
import { buildMbox, WORK_MAILBOX } from "../../src/sample/mail-sample.js";
import { createRng } from "../../src/sample/prng.js";

function withFile(bytes: string, run: (path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-mbox-worker-"));
  const path = join(dir, "mail.mbox");
  writeFileSync(path, bytes);
  return run(path).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const mailbox = (count: number) =>
  `junk before the first separator\n\nFrom x Mon Jan  1 00:00:00 2024\nnot a header\n\n${buildMbox(
    createRng(5),
    WORK_MAILBOX,
    { count, startMs: Date.UTC(2023, 0, 1), hugeIndex: 3, idPrefix: "w" },
  )}`;

test("worker source: same records (as JSON), positions and errors as openMboxSource, and the byte count", async () => {
  const text = mailbox(700);
  await withFile(text, async (path) => {
    const expected: unknown[] = [];
    for await (const item of openMboxSource(path).items) expected.push(item);
    const source = openMboxWorkerSource(path);
    const actual: unknown[] = [];
    for await (const item of source.items) {
      actual.push(
        "json" in item ? { stream: item.stream, data: JSON.parse(item.json), position: item.position } : item,
      );
    }
    assert.equal(actual.length, 702);
    assert.deepEqual(actual, expected);
    assert.equal(source.bytesRead(), Buffer.byteLength(text));
    assert.equal(source.totalBytes, Buffer.byteLength(text));
    assert.equal(source.manifest.connector_key, "mbox");
  });
});

test("worker source: stopping early ends the worker; a missing file is a typed error", async () => {
  await withFile(mailbox(2000), async (path) => {
    let seen = 0;
    for await (const item of openMboxWorkerSource(path).items) {
      if ("json" in item && ++seen === 3) break;
    }
    assert.equal(seen, 3);
  });
  assert.throws(
    () => openMboxWorkerSource("/nonexistent/mail.mbox"),
    (error: unknown) => error instanceof PdppError && error.code === "invalid_request",
  );
});
