// Pure renderers: budgets, previews with continuations, aggregate and search text, fetch documents.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { renderAggregateText } from "../../../src/core/render/aggregate-text.js";
import { clipBytes, codePoints, sliceCodePoints, utf8Bytes } from "../../../src/core/render/budget.js";
import { buildFetchDocument } from "../../../src/core/render/fetch-doc.js";
import { cutPayload, previewRecord } from "../../../src/core/render/record-preview.js";
import { renderRecordsText } from "../../../src/core/render/records-text.js";
import { balanceMarks, clipSnippet } from "../../../src/core/render/search-text.js";
import type { WireRecord } from "../../../src/core/wire.js";

const C = "cin_0123456789ab";
function record(data: Record<string, unknown>, extra: Partial<WireRecord> = {}): WireRecord {
  return {
    object: "record",
    id: `${C}/notes:n1`,
    stream: "notes",
    record_id: "n1",
    connection_id: C,
    connector_key: "notes",
    display_name: "Notebook",
    emitted_at: "2024-01-02T00:00:00Z",
    time: "2024-01-01T00:00:00Z",
    data,
    ...extra,
  };
}

describe("budget helpers", () => {
  test("code points, never splitting surrogate pairs", () => {
    assert.equal(codePoints("a📬b"), 3);
    assert.equal(sliceCodePoints("📬📬📬", 2), "📬📬");
    assert.equal(clipBytes("ééééé", 7), "éé…");
    assert.ok(utf8Bytes(clipBytes("x".repeat(100), 10)) <= 10);
  });
});

describe("previews", () => {
  test("cut strings get exact continuations; RS previews keep their true size", () => {
    const { data, cut } = cutPayload({ a: "x".repeat(10), b: { c: "y".repeat(10) }, n: 3 }, 4);
    assert.deepEqual(data, { a: "xxxx", b: { c: "yyyy" }, n: 3 });
    assert.deepEqual(
      cut.map((c) => [c.path, c.shown, c.sizeChars]),
      [
        ["a", 4, 10],
        ["b.c", 4, 10],
      ],
    );
    const rs = record(
      { body: "z".repeat(64) },
      { field_previews: { body: { size_chars: 5000, digest: "sha256:ab", complete: false } } },
    );
    const p = previewRecord(rs, { maxChars: 2048, narrowed: false });
    assert.equal(p.ladder.length, 1);
    assert.deepEqual(p.ladder[0].continue, {
      tool: "read_record_field",
      args: { id: rs.id, field_path: "body", offset_chars: 64 },
    });
    assert.equal(p.ladder[0].field.size_chars, 5000);
    assert.equal(p.ladder[0].digest, "sha256:ab");
    assert.ok(p.ladder[0].resource_uri.startsWith("pdpp://field-window/"));
    assert.equal(p.record.field_previews, undefined);
  });
  test("records text stays within 1,800 bytes and prints every paging handle", () => {
    const recs = Array.from({ length: 50 }, (_, i) =>
      record({ body: "w".repeat(5000), i }, { id: `${C}/notes:n${i}` }),
    );
    const text = renderRecordsText(
      {
        object: "list",
        data: recs,
        has_more: true,
        next_cursor: "CUR.SIG",
        next_changes_since: null,
        meta: { count: 500, warnings: [] },
      },
      { stream: "notes", narrowed: false },
    );
    assert.ok(utf8Bytes(text) <= 1800, `${utf8Bytes(text)}`);
    assert.match(text, /has_more=true · next_cursor=CUR\.SIG · next_changes_since=null · count=500/);
    assert.match(text, /"cut":\{"body":\[\d+,5000\]\}/);
    // Paging on would skip the records of this page that the text left out: the footer says how to see them.
    assert.match(
      text,
      /\nshowing \d of 50; next_cursor skips the other \d+: to see them, ask again with (fields:\[…\] or )?limit=\d and page on from there$/,
    );
  });
  test("records text prefers more records at shorter previews; the id and time are not repeated", () => {
    const recs = Array.from({ length: 3 }, (_, i) =>
      record(
        {
          note_id: `n${i}`,
          at: "2024-01-01T00:00:00Z",
          from: "Someone <someone@example.com>",
          body: "w".repeat(3000),
        },
        { id: `${C}/notes:n${i}`, record_id: `n${i}` },
      ),
    );
    const envelope = {
      object: "list" as const,
      data: recs,
      has_more: false,
      next_cursor: null,
      meta: { warnings: [] },
    };
    const text = renderRecordsText(envelope, { stream: "notes", narrowed: false });
    const lines = text.split("\n").filter((l) => l.startsWith('{"id"'));
    assert.equal(lines.length, 3, text);
    const first = JSON.parse(lines[0]) as {
      time?: string;
      data: Record<string, unknown>;
      cut: Record<string, unknown>;
    };
    assert.equal(first.time, undefined, "time equals the at field");
    assert.equal(first.data.note_id, undefined, "the record id is printed once, in id");
    assert.equal(first.data.from, "Someone <someone@example.com>", "short fields stay whole");
    assert.deepEqual(first.cut, { body: [160, 3000] });
    assert.match(text, /end of results$/);
  });
});

describe("search and aggregate text", () => {
  test("snippets keep balanced marks and the first highlight", () => {
    assert.equal(balanceMarks("a <mark>b"), "a <mark>b</mark>");
    assert.equal(balanceMarks("a</mark> b"), "a b");
    const clipped = clipSnippet(`${"x ".repeat(200)}<mark>hit</mark> tail`, 120);
    assert.match(clipped, /<mark>hit<\/mark>/);
  });
  test("aggregate text: scalar and grouped within budgets, with other_count", () => {
    const scalar = renderAggregateText({
      object: "aggregate",
      stream: "messages",
      metric: "count",
      value: 1234,
      filtered_record_count: 1234,
      meta: { warnings: [] },
    });
    assert.equal(scalar, "count(messages) = 1234 · records matched=1234");
    const groups = Array.from({ length: 100 }, (_, i) => ({ key: `${"k".repeat(80)}${i}`, value: 100 - i }));
    const grouped = renderAggregateText(
      {
        object: "aggregate",
        stream: "messages",
        metric: "count",
        groups,
        group_count: 300,
        other_count: 77,
        filtered_record_count: 5000,
        meta: { warnings: [] },
      },
      { groupBy: "from" },
    );
    assert.ok(grouped.length <= 1200);
    assert.match(grouped, /other_count=77/);
  });
});

describe("fetch document", () => {
  test("first text field bounded, continuation in metadata; no text field → JSON with a pointer", () => {
    const long = record(
      { title: "T", body: "b".repeat(16_384) },
      { field_previews: { body: { size_chars: 30_000, digest: "sha256:1", complete: false } } },
    );
    const stream = {
      name: "notes",
      primary_key: ["id"],
      title_field: "title",
      record_counts: {},
      fields: {
        body: {
          type: "string",
          granted: true,
          exact_filter: false,
          range_filter: [],
          search: true,
          aggregations: [],
          text_like: true,
        },
      },
    };
    const doc = buildFetchDocument("notes:n1", long, { stream, providerUrl: "http://h/", narrowed: false });
    assert.equal(doc.id, "notes:n1");
    assert.equal(doc.title, "T");
    assert.equal(doc.text.length, 16_384);
    assert.equal(doc.url, `http://h/v1/streams/notes/records/n1?connection_id=${C}`);
    assert.equal(doc.metadata.text_complete, false);
    assert.deepEqual(doc.metadata.continue_with, {
      tool: "read_record_field",
      args: { id: long.id, field_path: "body", offset_chars: 16_384 },
    });
    const plain = buildFetchDocument(long.id, record({ amount: 5 }), {
      providerUrl: "http://h",
      narrowed: false,
    });
    assert.equal(plain.text, '{"amount":5}');
    assert.equal(plain.title, "Notebook · notes · 2024-01-01T00:00:00Z");
  });
});
