// Unit tests for filter parsing, validation against scopes and type coercion.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PdppError } from "../../src/core/errors.js";
import { MAX_FILTER_FIELDS, parseFilterEntries, resolveFilters } from "../../src/core/filters.js";
import { CHAT_MANIFEST, MAIL_MANIFEST } from "../rs/fixture-manifests.js";

const mail = { stream: MAIL_MANIFEST.streams[0], fields: "all" as const };
const chat = { stream: CHAT_MANIFEST.streams[0], fields: "all" as const };
const entries = (qs: string) => [...new URLSearchParams(qs).entries()];
const resolve = (qs: string, scopes: { stream: typeof mail.stream; fields: string[] | "all" }[] = [mail]) =>
  resolveFilters(parseFilterEntries(entries(qs)), scopes);
const fail = (fn: () => unknown): PdppError => {
  try {
    fn();
  } catch (err) {
    return err as PdppError;
  }
  throw new Error("expected an error");
};

describe("core/filters", () => {
  it("parses eq and range ops and coerces by declared type", () => {
    assert.deepEqual(
      resolve(
        "filter[from]=a@x&filter[sent_at][gte]=2024-01-01&filter[size_bytes][lte]=100&filter[starred]=true&limit=3",
      ),
      [
        { field: "from", op: "eq", value: "a@x" },
        { field: "sent_at", op: "gte", value: "2024-01-01T00:00:00.000Z" },
        { field: "size_bytes", op: "lte", value: 100 },
        { field: "starred", op: "eq", value: true },
      ],
    );
    assert.deepEqual(resolve("filter[labels]=inbox&filter[sender.email][eq]=b@y"), [
      { field: "labels", op: "eq", value: "inbox" },
      { field: "sender.email", op: "eq", value: "b@y" },
    ]);
  });

  it("reads zone-less date-times as UTC", () => {
    assert.deepEqual(resolve("filter[sent_at][lt]=2024-03-05T14:07"), [
      { field: "sent_at", op: "lt", value: "2024-03-05T14:07:00.000Z" },
    ]);
  });

  it("rejects malformed syntax, unknown ops, bad values and duplicates as invalid_filter", () => {
    for (const qs of [
      "filter=x",
      "filter[]=x",
      "filter[a][b][c]=x",
      "filter[from][like]=x",
      "filter[../etc]=x",
      "filter[size_bytes][gte]=ten",
      "filter[size_bytes][gte]=1.5",
      "filter[starred]=yes",
      "filter[sent_at][gte]=yesterday",
      "filter[from]=a&filter[from][eq]=b",
      "filter[nope]=1",
      "filter[subject]=x",
      "filter[size_bytes]=3",
      "filter[from][gte]=a",
      "filter[sender]=x",
    ]) {
      const err = fail(() => resolve(qs));
      assert.equal(err.code, "invalid_filter", qs);
      assert.equal(err.param, "filter", qs);
    }
  });

  it("limits the number of filter fields", () => {
    const qs = Array.from({ length: MAX_FILTER_FIELDS + 1 }, (_, i) => `filter[f${i}]=1`).join("&");
    const err = fail(() => parseFilterEntries(entries(qs)));
    assert.equal(err.code, "limit_exceeded");
    assert.match(err.message, /16 filter fields/);
  });

  it("answers 403 field_not_granted for a declared but hidden field, without naming it", () => {
    const err = fail(() =>
      resolve("filter[secret_note]=x", [{ stream: mail.stream, fields: ["from", "subject"] }]),
    );
    assert.equal(err.code, "field_not_granted");
    assert.equal(err.status, 403);
    assert.doesNotMatch(err.message, /secret_note/);
  });

  it("requires a filter field to be valid on every connector a stream fans in over", () => {
    assert.deepEqual(resolve("filter[sent_at][gte]=2024-01-01", [mail, chat]), [
      { field: "sent_at", op: "gte", value: "2024-01-01T00:00:00.000Z" },
    ]);
    assert.equal(fail(() => resolve("filter[from]=a", [mail, chat])).code, "invalid_filter");
  });
});
