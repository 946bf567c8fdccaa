// searchableText: ASCII text is stored raw, which must tokenise exactly like the rewritten form
// (lowercased word runs joined by spaces) under the FTS5 tokenizer the SQLite store uses.
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { searchableText } from "../../../src/store/sqlite/search-text.js";

const SAMPLES = [
  "Hello, World! foo_bar-baz+qux",
  "  MiXeD cAsE 123abc 4.5e6 $100 #tag @user ~x^y`z  ",
  "a|b\\c/d<e>f=g[h]i{j}k(l)m;n:o'p\"q?r*s&t%u",
  "\t\nline\r\nbreaks\u0001ctl",
  "---",
  "",
];

function tokens(db: Database.Database, text: string): string[] {
  db.exec("DELETE FROM t");
  db.prepare("INSERT INTO t (rowid, c) VALUES (1, ?)").run(text);
  return (db.prepare("SELECT term FROM v ORDER BY term").all() as { term: string }[]).map((r) => r.term);
}

test("raw ASCII and rewritten text give the same FTS5 tokens", () => {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(c, tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'");
    CREATE VIRTUAL TABLE v USING fts5vocab(t, row);`);
  for (const sample of SAMPLES) {
    const rewritten = sample
      .replace(/[^\p{L}\p{M}\p{N}]+/gu, " ")
      .toLowerCase()
      .trim();
    assert.deepEqual(tokens(db, searchableText(sample)), tokens(db, rewritten), JSON.stringify(sample));
  }
  db.close();
});

test("text without a word indexes as empty; non-ASCII text is rewritten", () => {
  assert.equal(searchableText("--- !!!"), "");
  assert.equal(searchableText("Foo bar"), "Foo bar");
  assert.equal(searchableText("Ünïcode—Straße"), "ünïcode straße");
  assert.equal(searchableText(["A-b", 12, true]), "A-b 12 true");
});
