// The generic CSV / JSON / JSONL importers: parsing at any chunking, typing, inference, malformed input.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { validateManifest } from "../../src/core/manifest-validate.js";
import { openCsvSource } from "../../src/importers/csv.js";
import { csvRows } from "../../src/importers/csv-parse.js";
import { loadManifestFile, nameFromFile } from "../../src/importers/generic.js";
import { openJsonSource } from "../../src/importers/json.js";
import { openJsonlSource } from "../../src/importers/jsonl.js";
import type { ImportItem, ImportSource } from "../../src/importers/types.js";

async function drain(source: ImportSource): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of source.items) out.push(item);
  return out;
}

function inDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-generic-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const CSV =
  '\ufeffid,date,amount,merchant,note\r\n1,2024-03-01,-12.50,"Café ""Bleu""","two\r\nlines"\r\n2,2024-03-02,1000,Rent Co,\r\n\r\n3,2024-03-03,abc,X,y\r\n4,2024-03-04,5\r\n';

test("csvRows: quotes, doubled quotes, embedded CRLF, BOM, blank lines, at every chunk size", async () => {
  const bytes = Buffer.from(CSV);
  for (const size of [1, 2, 3, 5, 8, 1000]) {
    async function* gen() {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    }
    const rows = [];
    for await (const row of csvRows(gen())) rows.push([row.line, ...row.fields]);
    assert.deepEqual(
      rows,
      [
        [1, "id", "date", "amount", "merchant", "note"],
        [2, "1", "2024-03-01", "-12.50", 'Café "Bleu"', "two\r\nlines"],
        [4, "2", "2024-03-02", "1000", "Rent Co", ""],
        [6, "3", "2024-03-03", "abc", "X", "y"],
        [7, "4", "2024-03-04", "5"],
      ],
      `chunk ${size}`,
    );
  }
});

test(
  "CSV with --infer: types, id key, time and title fields; bad rows reported by line",
  inDir(async (dir) => {
    const path = join(dir, "Bank Export.csv");
    writeFileSync(path, CSV.replace("abc", "7.25"));
    const source = await openCsvSource(path, { infer: true });
    const manifest = validateManifest(source.manifest);
    assert.equal(manifest.connector_key, "csv.bank-export");
    const stream = manifest.streams[0]!;
    assert.equal(stream.name, "bank_export");
    assert.deepEqual(stream.primary_key, ["id"]);
    assert.equal(stream.time_field, "date");
    assert.equal(stream.title_field, "merchant");
    assert.deepEqual(stream.schema.properties, {
      id: { type: "integer" },
      date: { type: "string", format: "date-time" },
      amount: { type: "number" },
      merchant: { type: "string" },
      note: { type: "string" },
    });
    assert.deepEqual(stream.query?.aggregations?.sum, ["id", "amount"]);
    const items = await drain(source);
    assert.deepEqual(items, [
      {
        stream: "bank_export",
        position: "line 2",
        data: { id: 1, date: "2024-03-01", amount: -12.5, merchant: 'Café "Bleu"', note: "two\r\nlines" },
      },
      {
        stream: "bank_export",
        position: "line 4",
        data: { id: 2, date: "2024-03-02", amount: 1000, merchant: "Rent Co", note: null },
      },
      {
        stream: "bank_export",
        position: "line 6",
        data: { id: 3, date: "2024-03-03", amount: 7.25, merchant: "X", note: "y" },
      },
      { error: "expected 5 columns, found 3", position: "line 7" },
    ]);
    assert.equal(source.bytesRead(), Buffer.byteLength(CSV.replace("abc", "7.25")));
  }),
);

test(
  "CSV with a manifest file: a value that does not fit its declared type is rejected with its line",
  inDir(async (dir) => {
    const manifestPath = join(dir, "bank.manifest.json");
    writeFileSync(
      manifestPath,
      JSON.stringify({
        connector_key: "csv.bank",
        display_name: "Bank",
        version: "1",
        streams: [
          {
            name: "transactions",
            primary_key: ["id"],
            time_field: "date",
            schema: {
              type: "object",
              properties: {
                id: { type: "string" },
                date: { type: "string", format: "date" },
                amount: { type: "number" },
                merchant: { type: "string" },
                note: { type: "string" },
              },
            },
          },
        ],
      }),
    );
    const path = join(dir, "tx.csv");
    writeFileSync(path, CSV);
    const source = await openCsvSource(path, { manifest: loadManifestFile(manifestPath) });
    const items = await drain(source);
    assert.deepEqual(
      items.map((i) =>
        "error" in i
          ? `${i.position}: ${i.error}`
          : `${i.position}: ${JSON.stringify(i.data.id)} ${i.data.amount}`,
      ),
      [
        'line 2: "1" -12.5',
        'line 4: "2" 1000',
        'line 6: field amount: "abc" is not a number',
        "line 7: expected 5 columns, found 3",
      ],
    );
  }),
);

test(
  "a manifest that fails validation and a missing --manifest/--infer are clear errors",
  inDir(async (dir) => {
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ connector_key: "Bad Key", display_name: "x", version: "1", streams: [] }),
    );
    assert.throws(() => loadManifestFile(bad), { code: "manifest_invalid" });
    writeFileSync(join(dir, "a.csv"), "id\n1\n");
    await assert.rejects(openCsvSource(join(dir, "a.csv"), {}), {
      code: "invalid_request",
      message: /--manifest/,
    });
  }),
);

test(
  "JSONL with --infer and no id column: a content-hash key; bad lines skipped with their line number",
  inDir(async (dir) => {
    const path = join(dir, "events.jsonl");
    const lines = [
      '{"at":"2024-01-01T10:00:00Z","kind":"login","ok":true,"tags":["a"]}',
      "",
      "{not json",
      "[1,2]",
      '{"at":"2024-01-02T10:00:00Z","kind":"logout","ok":false,"tags":[]}',
    ];
    writeFileSync(path, lines.join("\n"));
    const source = await openJsonlSource(path, { infer: true, stream: "events" });
    const stream = source.manifest.streams[0]!;
    assert.deepEqual(stream.primary_key, ["content_hash"]);
    assert.equal(stream.time_field, "at");
    assert.deepEqual(stream.schema.properties.ok, { type: "boolean" });
    assert.deepEqual(stream.schema.properties.tags, { type: "array" });
    const items = await drain(source);
    assert.equal(items.length, 4);
    assert.deepEqual(items[2], { error: "a record must be a JSON object", position: "line 4" });
    assert.ok("error" in items[1]! && items[1].position === "line 3");
    const first = items[0]!;
    assert.ok("data" in first);
    assert.match(String(first.data.content_hash), /^[0-9a-f]{64}$/);
    const again = await drain(await openJsonlSource(path, { infer: true, stream: "events" }));
    assert.deepEqual(again, items);
  }),
);

test(
  "JSON array with --infer streams objects and rejects non-objects",
  inDir(async (dir) => {
    const path = join(dir, "notes.json");
    writeFileSync(
      path,
      JSON.stringify([{ note_id: "n1", body: "x".repeat(300) }, "oops", { note_id: "n2", body: "short" }]),
    );
    const source = await openJsonSource(path, { infer: true });
    const stream = source.manifest.streams[0]!;
    assert.deepEqual(stream.primary_key, ["note_id"]);
    assert.deepEqual(stream.text_fields, ["body"]);
    const items = await drain(source);
    assert.deepEqual(
      items.map((i) => ("error" in i ? i.position : i.data.note_id)),
      ["n1", "element 2 (byte 328)", "n2"],
    );
  }),
);

test("nameFromFile makes a safe stream name", () => {
  assert.equal(nameFromFile("/x/Bank Export 2024.csv"), "bank_export_2024");
  assert.equal(nameFromFile("2024.jsonl"), "f_2024");
});
