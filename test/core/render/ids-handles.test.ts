// Pure id wrapping/resolution and resource handles.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PdppError } from "../../../src/core/errors.js";
import {
  decodeRecordHandle,
  decodeWindowHandle,
  parseResourceUri,
  recordUri,
  windowUri,
} from "../../../src/core/render/handles.js";
import { resolveRecordTarget, wrapHitId } from "../../../src/core/render/record-ref.js";

const C = "cin_0123456789ab";
const D = "cin_ba9876543210";
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as PdppError).code;
  }
  return "no error";
};

describe("record refs", () => {
  test("resolve self-contained and legacy ids; record ids keep their colons", () => {
    assert.deepEqual(resolveRecordTarget(`${C}/messages:a:b:c`), {
      id: `${C}/messages:a:b:c`,
      connectionId: C,
      stream: "messages",
      recordId: "a:b:c",
    });
    assert.deepEqual(resolveRecordTarget("messages:x", D), {
      id: "messages:x",
      connectionId: D,
      stream: "messages",
      recordId: "x",
    });
    assert.equal(resolveRecordTarget(`${C}/messages:x`, C).connectionId, C);
    assert.equal(
      code(() => resolveRecordTarget(`${C}/messages:x`, D)),
      "conflicting_connection_id",
    );
    assert.equal(
      code(() => resolveRecordTarget("messages:x", "cin_../x")),
      "invalid_id",
    );
  });
  test("wrap only record handles; never re-wrap", () => {
    assert.equal(wrapHitId({ connection_id: C, stream: "messages", record_id: "a1" }), `${C}/messages:a1`);
    assert.equal(
      wrapHitId({ id: `${C}/messages:a1`, connection_id: D, stream: "messages", record_id: "a1" }),
      `${C}/messages:a1`,
    );
    assert.equal(wrapHitId({ stream: "messages", record_id: "a1" }), "messages:a1");
    assert.equal(wrapHitId({ id: "result:3" }), "result:3");
    assert.equal(
      wrapHitId({ id: "https://x.example/doc", stream: null, record_id: null }),
      "https://x.example/doc",
    );
    assert.equal(
      wrapHitId({ connection_id: "not a cin", stream: "messages", record_id: "a1" }),
      "messages:a1",
    );
  });
});

describe("resource handles", () => {
  test("round-trip record and window handles", () => {
    const r = parseResourceUri(recordUri({ c: C, s: "messages", r: "a%2Fb" }));
    assert.equal(r.kind, "record");
    assert.deepEqual(decodeRecordHandle(r.handle), { v: 1, c: C, s: "messages", r: "a%2Fb" });
    const w = parseResourceUri(windowUri({ c: C, s: "messages", r: "x", f: "body", w: { o: 10, l: 20 } }));
    assert.deepEqual(decodeWindowHandle(w.handle), {
      v: 1,
      c: C,
      s: "messages",
      r: "x",
      f: "body",
      w: { o: 10, l: 20 },
    });
    const cur = parseResourceUri(windowUri({ c: C, s: "messages", r: "x", f: "body", w: { cur: "ab.cd" } }));
    assert.deepEqual(decodeWindowHandle(cur.handle).w, { cur: "ab.cd" });
  });
  test("malformed handles fail with invalid_id", () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const bad of [
      "%%",
      enc([1]),
      enc({ v: 2, c: C, s: "messages", r: "x" }),
      enc({ v: 1, c: C, s: "messages", r: ".." }),
      enc({ v: 1, c: C, s: "messages", r: "a/b" }),
      enc({ v: 1, c: "cin_x", s: "messages", r: "x" }),
      enc({ v: 1, c: C, s: "messages", r: "x", extra: 1 }),
    ]) {
      assert.equal(
        code(() => decodeRecordHandle(bad)),
        "invalid_id",
        bad,
      );
    }
    assert.equal(
      code(() => decodeWindowHandle(enc({ v: 1, c: C, s: "messages", r: "x", f: "a..b", w: { o: 0 } }))),
      "invalid_id",
    );
    assert.equal(
      code(() => decodeWindowHandle(enc({ v: 1, c: C, s: "messages", r: "x", f: "body", w: { o: -1 } }))),
      "invalid_id",
    );
    assert.equal(
      code(() => parseResourceUri("file:///etc/passwd")),
      "invalid_id",
    );
  });
});
