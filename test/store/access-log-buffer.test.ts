// The access-log buffer: rows are written in batches, in append order, before any read of the
// log and at close; a failing write is reported, never thrown into a request.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { AccessLogBuffer } from "../../src/store/access-log-buffer.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { AccessLogEntry } from "../../src/store/store.js";

const row = (i: number): AccessLogEntry => ({
  at: `2024-01-01T00:00:00.${String(i).padStart(3, "0")}Z`,
  grant_id: "g",
  client_name: "c",
  route: `GET /v1/r${i}`,
  stream: null,
  connection_id: null,
  record_count: i,
  bytes: i,
  status: 200,
});

describe("access-log buffer", () => {
  test("batches rows and writes them in append order", async () => {
    const batches: number[][] = [];
    const buffer = new AccessLogBuffer((rows) => {
      batches.push(rows.map((r) => r.record_count));
    });
    for (let i = 0; i < 5; i++) buffer.append(row(i));
    assert.deepEqual(batches, [], "nothing is written on the request path");
    await buffer.flush();
    buffer.append(row(5));
    await buffer.flush();
    await buffer.flush();
    assert.deepEqual(batches, [[0, 1, 2, 3, 4], [5]]);
  });

  test("a full batch is written without waiting for the timer", async () => {
    let written = 0;
    const buffer = new AccessLogBuffer((rows) => {
      written += rows.length;
    });
    for (let i = 0; i < 1000; i++) buffer.append(row(i % 999));
    await buffer.flush();
    assert.equal(written, 1000);
  });

  test("a failing write is reported on stderr and does not break later batches", async () => {
    const seen: number[] = [];
    let fail = true;
    const buffer = new AccessLogBuffer((rows) => {
      if (fail) throw new Error("disk full");
      seen.push(...rows.map((r) => r.record_count));
    });
    const original = console.error;
    const errors: string[] = [];
    console.error = (...args: unknown[]) => errors.push(args.join(" "));
    try {
      buffer.append(row(1));
      await buffer.flush();
      fail = false;
      buffer.append(row(2));
      await buffer.flush();
    } finally {
      console.error = original;
    }
    assert.deepEqual(seen, [2]);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /1 access-log rows: disk full/);
  });

  test("SQLite: rows appended before a clean close are all there after reopening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-alog-"));
    try {
      const path = join(dir, "pdpp.db");
      const store = await openSqliteStore({ path });
      for (let i = 0; i < 3; i++) await store.appendAccessLog(row(i));
      await store.close();
      const reopened = await openSqliteStore({ path });
      const rows = await reopened.listAccessLog({ limit: 10 });
      assert.deepEqual(
        rows.map((r) => r.route),
        ["GET /v1/r2", "GET /v1/r1", "GET /v1/r0"],
      );
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
