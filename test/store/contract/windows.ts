// Contract: field windows in code points (astral = 1), ranges at start/middle/end and across chunk
// boundaries, match windows, q not found, non-text fields and scope hiding.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PdppError } from "../../../src/core/errors.js";
import { sha256Digest } from "../../../src/core/ids.js";
import { CHUNK_CHARS } from "../../../src/core/text-chunks.js";
import type { WindowSelector } from "../../../src/store/store.js";
import type { TestBackend } from "../../helpers/backends.js";
import { type Loaded, openLoaded, scopeOf } from "./fixtures.js";

// 3 chunks and a bit: emoji every 10th code point; "NeedleX" straddles the first chunk boundary.
function bigBody(): string {
  const cps: string[] = [];
  for (let i = 0; i < CHUNK_CHARS * 3 + 500; i++)
    cps.push(i % 10 === 0 ? "😀" : String.fromCharCode(97 + (i % 26)));
  const needle = [..."NeedleX"];
  cps.splice(CHUNK_CHARS - 3, needle.length, ...needle);
  return cps.join("");
}

export function windowsContract(backend: TestBackend): void {
  describe("field windows", () => {
    let L: Loaded;
    const body = bigBody();
    const cps = [...body];
    const slice = (start: number, end: number) => cps.slice(start, end).join("");
    before(async () => {
      L = await openLoaded(backend);
      await L.store.applyBatch(L.connA, "messages", [
        {
          op: "upsert",
          data: { message_id: "big", subject: "Big one 😀 here", body, sent_at: "2024-06-01T00:00:00Z" },
        },
        {
          op: "upsert",
          data: {
            message_id: "small",
            subject: "Tiny",
            body: "a😀b",
            sent_at: "2024-06-02T00:00:00Z",
            size_bytes: 5,
          },
        },
      ]);
    });
    after(async () => L.opened.cleanup());
    const read = (path: string, selector: WindowSelector, recordId = "big", scope = scopeOf(L)) =>
      L.store.readFieldWindow(scope, { connectionId: L.connA, recordId, path }, selector);
    const range = (offsetChars: number, limitChars: number): WindowSelector => ({
      kind: "range",
      offsetChars,
      limitChars,
    });

    test("size and digest describe the whole field; windows count code points", async () => {
      const w = await read("body", range(0, 25));
      assert.ok(w);
      assert.equal(w.sizeChars, cps.length);
      assert.equal(w.digest, sha256Digest(body));
      assert.equal(w.textLike, true);
      assert.equal(w.mimeType, "text/plain");
      assert.equal(w.text, slice(0, 25));
      assert.deepEqual([w.startChars, w.endChars, w.match], [0, 25, null]);
      const small = await read("body", range(1, 1), "small");
      assert.deepEqual([small?.text, small?.sizeChars, small?.startChars, small?.endChars], ["😀", 3, 1, 2]);
    });

    test("ranges in the middle, across a chunk boundary, and at the end (clamped)", async () => {
      for (const [offset, limit] of [
        [1000, 4096],
        [CHUNK_CHARS - 10, 20],
        [2 * CHUNK_CHARS - 1, 2],
        [CHUNK_CHARS * 3, 16384],
        [cps.length - 5, 100],
        [cps.length, 10],
        [cps.length + 100, 10],
      ]) {
        const w = await read("body", range(offset, limit));
        const start = Math.min(offset, cps.length);
        const end = Math.min(cps.length, start + limit);
        assert.equal(w?.text, slice(start, end), `offset ${offset}`);
        assert.deepEqual([w?.startChars, w?.endChars], [start, end]);
      }
    });

    test("match windows: first case-insensitive occurrence, spanning a chunk boundary", async () => {
      const w = await read("body", {
        kind: "match",
        q: "needlex",
        beforeChars: 5,
        afterChars: 3,
        limitChars: 15,
      });
      const at = CHUNK_CHARS - 3;
      assert.deepEqual(w?.match, { startChars: at, endChars: at + 7 });
      assert.deepEqual([w?.startChars, w?.endChars], [at - 5, at + 10]);
      assert.equal(w?.text, slice(at - 5, at + 10));
      const early = await read("body", {
        kind: "match",
        q: "BCD",
        beforeChars: 100,
        afterChars: 2,
        limitChars: 105,
      });
      assert.deepEqual(early?.match, { startChars: 1, endChars: 4 });
      assert.deepEqual([early?.startChars, early?.endChars], [0, 6]);
      const late = await read(
        "body",
        { kind: "match", q: "😀B", beforeChars: 0, afterChars: 0, limitChars: 2 },
        "small",
      );
      assert.deepEqual([late?.text, late?.match], ["😀b", { startChars: 1, endChars: 3 }]);
    });

    test("a match window never exceeds limitChars: the match is kept, its context trimmed", async () => {
      const at = CHUNK_CHARS - 3;
      const w = await read("body", {
        kind: "match",
        q: "needlex",
        beforeChars: 50,
        afterChars: 50,
        limitChars: 21,
      });
      assert.deepEqual(w?.match, { startChars: at, endChars: at + 7 });
      assert.deepEqual([w?.startChars, w?.endChars], [at - 7, at + 14]);
      assert.equal(w?.text, slice(at - 7, at + 14));
      const tight = await read("body", {
        kind: "match",
        q: "needlex",
        beforeChars: 9,
        afterChars: 9,
        limitChars: 4,
      });
      assert.deepEqual([tight?.startChars, tight?.endChars], [at, at + 4]);
      // Near the start there is less before than asked: after gets the rest of the limit.
      const early = await read("body", {
        kind: "match",
        q: "BCD",
        beforeChars: 5,
        afterChars: 5,
        limitChars: 9,
      });
      assert.deepEqual([early?.startChars, early?.endChars], [0, 9]);
    });

    test("q not found: match null and the window from 0", async () => {
      const w = await read("body", {
        kind: "match",
        q: "no such text anywhere",
        beforeChars: 10,
        afterChars: 20,
        limitChars: 30,
      });
      assert.equal(w?.match, null);
      assert.deepEqual([w?.startChars, w?.endChars, w?.text], [0, 30, slice(0, 30)]);
    });

    test("plain string fields window from the payload; non-strings as canonical JSON; absent is field_not_text", async () => {
      const w = await read("subject", range(4, 5));
      assert.deepEqual([w?.text, w?.sizeChars, w?.textLike], ["one 😀", 14, false]);
      assert.equal(w?.digest, sha256Digest("Big one 😀 here"));
      const m = await read("subject", {
        kind: "match",
        q: "HERE",
        beforeChars: 2,
        afterChars: 2,
        limitChars: 8,
      });
      assert.deepEqual([m?.text, m?.match], ["😀 here", { startChars: 10, endChars: 14 }]);
      const num = await read("size_bytes", range(0, 10), "small");
      assert.deepEqual(
        [num?.text, num?.sizeChars, num?.textLike, num?.mimeType, num?.digest],
        ["5", 1, false, "application/json", sha256Digest("5")],
      );
      const labels = ["inbox", "työ 😀", "x"];
      const meta = { thread: "t1", lang: "fi", deep: { b: [1, true, null], a: "z" } };
      await L.store.applyBatch(L.connA, "messages", [
        {
          op: "upsert",
          data: { message_id: "json", subject: "J", sent_at: "2024-06-03T00:00:00Z", labels, meta },
        },
      ]);
      const metaJson = '{"deep":{"a":"z","b":[1,true,null]},"lang":"fi","thread":"t1"}';
      const whole = await read("meta", range(0, 1000), "json");
      assert.deepEqual(
        [whole?.text, whole?.sizeChars, whole?.digest, whole?.textLike, whole?.mimeType],
        [metaJson, metaJson.length, sha256Digest(metaJson), false, "application/json"],
      );
      const labelsJson = '["inbox","työ 😀","x"]';
      const part = await read("labels", range(10, 6), "json");
      assert.deepEqual([part?.text, part?.sizeChars], [[...labelsJson].slice(10, 16).join(""), 21]);
      const hit = await read(
        "labels",
        { kind: "match", q: "😀", beforeChars: 1, afterChars: 1, limitChars: 3 },
        "json",
      );
      assert.deepEqual([hit?.text, hit?.match], [' 😀"', { startChars: 14, endChars: 15 }]);
      for (const path of ["labels", "received_at", "meta"]) {
        await assert.rejects(
          read(path, range(0, 10), "small"),
          (e: unknown) => e instanceof PdppError && e.code === "field_not_text",
          path,
        );
      }
    });

    test("hidden records and fields are never windowed", async () => {
      const outOfRange = scopeOf(L, { until: "2024-05-01T00:00:00Z" });
      assert.equal(await read("body", range(0, 10), "big", outOfRange), null);
      assert.equal(await read("body", range(0, 10), "big", scopeOf(L, { connectionIds: [L.connB] })), null);
      assert.equal(await read("body", range(0, 10), "missing"), null);
      await assert.rejects(
        read("body", range(0, 10), "big", scopeOf(L, { fields: ["subject"] })),
        (e: unknown) => e instanceof PdppError && e.code === "field_not_granted",
      );
    });

    test("the window reflects a replaced text", async () => {
      await L.store.applyBatch(L.connA, "messages", [
        {
          op: "upsert",
          data: { message_id: "small", subject: "Tiny", body: "replaced!", sent_at: "2024-06-02T00:00:00Z" },
        },
      ]);
      const w = await read("body", range(0, 100), "small");
      assert.deepEqual([w?.text, w?.sizeChars, w?.digest], ["replaced!", 9, sha256Digest("replaced!")]);
    });
  });
}
