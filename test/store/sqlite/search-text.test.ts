// indexText: the FTS5 tokenizer the SQLite store uses must split the index text exactly into
// core's index terms (core/search-analysis.ts), whatever the source holds.
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { analyzeTerms } from "../../../src/core/search-analysis.js";
import { indexText } from "../../../src/store/sqlite/search-text.js";

const SAMPLES = [
  "Hello, World! foo_bar-baz+qux",
  "  MiXeD cAsE 123abc 4.5e6 $100 #tag @user ~x^y`z  ",
  "a|b\\c/d<e>f=g[h]i{j}k(l)m;n:o'p\"q?r*s&t%u",
  "\t\nline\r\nbreaks\u0001ctl",
  "Ünïcode—Straße naïve café ΣΑΣ नमस्ते 東京都 😀 running flies",
  "---",
  "",
];

function tokens(db: Database.Database, text: string): string[] {
  db.exec("DELETE FROM t");
  db.prepare("INSERT INTO t (rowid, c) VALUES (1, ?)").run(text);
  return (db.prepare("SELECT term FROM v WHERE col = 'c' ORDER BY offset").all() as { term: string }[]).map(
    (r) => r.term,
  );
}

test("FTS5 splits index text into exactly core's index terms", () => {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(c, tokenize="ascii");
    CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
  for (const sample of SAMPLES) {
    assert.deepEqual(tokens(db, indexText(sample)), analyzeTerms(sample), JSON.stringify(sample));
  }
  db.close();
});

test("index text: stems, folded diacritics, scalars and arrays flattened", () => {
  assert.equal(indexText("--- !!!"), "");
  assert.equal(indexText("Running flies"), "run fli");
  assert.equal(indexText("Ünïcode—Straße café ΣΑΣ"), "unicod straße cafe σας");
  assert.equal(indexText(["A-b", 12, true]), "a b 12 true");
});
