// The relevance bench's harness on a tiny BEIR-layout collection: imported through the real jsonl
// importer, searched over HTTP and MCP under a grant that hides a decoy copy; a missing collection
// is one line naming what to download, and a non-zero exit.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { capQuery, runRelevanceBench } from "../../bench/relevance.js";
import { loadCollection, missingCollectionLine } from "../../bench/relevance-collection.js";
import { openStoreUnderTest } from "../../bench/relevance-store.js";

function writeCollection(dir: string): void {
  mkdirSync(join(dir, "qrels"), { recursive: true });
  const docs = [
    { _id: "d1", title: "Orbital decay", text: "Satellites in low orbit lose height to drag.", metadata: {} },
    {
      _id: "d2",
      title: "Tidal locking",
      text: "The moon shows one face: a zanzibar of tides.",
      metadata: {},
    },
    { _id: "d3", title: "Sunspots", text: "Magnetic fields cool patches of the photosphere.", metadata: {} },
  ];
  writeFileSync(join(dir, "corpus.jsonl"), docs.map((d) => JSON.stringify(d)).join("\n"));
  const queries = [
    { _id: "1", text: "zanzibar" },
    { _id: "2", text: "why do satellites fall" },
    { _id: "9", text: "an unjudged query" },
  ];
  writeFileSync(join(dir, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\r\n"));
  writeFileSync(join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\r\n1\td2\t1\r\n2\td1\t2\r\n");
}

test("a collection's judged queries load, CRLF or not; a known name must have the published counts", () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-relevance-"));
  try {
    writeCollection(dir);
    const c = loadCollection(dir, "tiny")!;
    assert.deepEqual([...c.queries.keys()], ["1", "2"]);
    assert.equal(c.docs.length, 3);
    assert.deepEqual(c.docs[1], {
      id: "d2",
      title: "Tidal locking",
      text: "The moon shows one face: a zanzibar of tides.",
    });
    assert.throws(
      () => loadCollection(dir, "scifact"),
      /has 3 documents and 2 judged queries; the published collection has 5183 and 300/,
    );
    assert.equal(loadCollection(join(dir, "nowhere"), "tiny"), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing collection: one line with the public URL and the folder, exit code 1", async () => {
  assert.match(
    missingCollectionLine("scifact", "/x/scifact"),
    /^relevance collection scifact not found: download https:\/\/\S+\/scifact\.zip and unzip it in \/x so that \/x\/scifact\/corpus\.jsonl, queries\.jsonl and qrels\/test\.tsv exist \(or pass --collection DIR\)\.$/,
  );
  assert.equal(
    missingCollectionLine("cisi", "/x/cisi"),
    "relevance collection cisi not found: download http://ir.dcs.gla.ac.uk/resources/test_collections/cisi/cisi.tar.gz and untar it in /x/cisi so that /x/cisi/CISI.ALL, CISI.QRY and CISI.REL exist (or pass --collection DIR).",
  );
  const lines: string[] = [];
  const original = console.error;
  console.error = (line: string) => lines.push(line);
  try {
    const code = await runRelevanceBench({
      collection: "/nonexistent/beir/mine",
      store: "sqlite",
      mcpSample: 0,
    });
    assert.equal(code, 1);
  } finally {
    console.error = original;
  }
  assert.deepEqual(lines, [
    "relevance collection mine not found: put a BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/test.tsv) or SMART files (X.ALL, X.QRY, X.REL) in /nonexistent/beir/mine (or pass --collection DIR).",
  ]);
});

test("the store under test imports with the jsonl importer and answers over HTTP and MCP, never from the decoy", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-relevance-"));
  writeCollection(dir);
  const sut = await openStoreUnderTest("sqlite", loadCollection(dir, "tiny")!);
  try {
    const answer = await sut.search("zanzibar", 100);
    assert.deepEqual(answer.ids, ["d2"]);
    assert.deepEqual(answer.outside, []);
    assert.equal(answer.error, undefined);
    assert.deepEqual(await sut.mcpSearch("zanzibar", 10), { ids: ["d2"] });
    assert.deepEqual((await sut.search("nothingmatchesthis", 100)).ids, []);
  } finally {
    await sut.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("queries longer than GET /v1/search's 1,000 characters are cut at the last space before the limit", () => {
  assert.equal(capQuery("short query"), "short query");
  const long = `${"word ".repeat(199)}lastword and more`; // 995 chars, then "lastword" crosses 1,000
  assert.equal(capQuery(long), "word ".repeat(199).trimEnd());
  assert.equal(capQuery("x".repeat(1500)).length, 1000);
  assert.equal(capQuery(`${"a".repeat(999)}😀b`), "a".repeat(999)); // no lone surrogate
});
