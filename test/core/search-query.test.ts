// Unit tests for pdpp's search analysis and query parsing: terms, stopwords, operators.
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeTerms, foldWord, isStopword, termOf } from "../../src/core/search-analysis.js";
import { parseSearchQuery } from "../../src/core/search-query.js";

test("analysis: case and Latin diacritics folded, ASCII words stemmed (Porter2), other words exact", () => {
  assert.deepEqual(analyzeTerms("Orbits ORBITING orbit"), ["orbit", "orbit", "orbit"]);
  assert.deepEqual(analyzeTerms("skies dying news generously"), ["sky", "die", "news", "generous"]);
  assert.deepEqual(analyzeTerms("Café naïve CAFE\u0301"), ["cafe", "naiv", "cafe"]);
  // Non-Latin marks are letters of their word; digits and mixed tokens are not stemmed.
  assert.deepEqual(analyzeTerms("नमस्ते 東京 ΟΔΟΣ x2s 2024-01-05"), [
    "नमस्ते",
    "東京",
    "οδος",
    "x2s",
    "2024",
    "01",
    "05",
  ]);
  assert.deepEqual(analyzeTerms("the and of"), ["the", "and", "of"]);
  assert.equal(foldWord("Straße"), "straße");
  assert.ok(isStopword("the") && isStopword("what") && !isStopword("plumber"));
  // Words past 1 KiB are no terms.
  assert.deepEqual(analyzeTerms(`a ${"x".repeat(1025)} b`), ["a", "b"]);
  assert.equal(termOf("running"), "run");
});

test("bare words are optional; stopwords dropped unless nothing else is asked", () => {
  assert.deepEqual(parseSearchQuery("what did the plumber say about the invoices"), [
    { occur: "should", match: { kind: "term", term: "plumber" }, text: "plumber" },
    { occur: "should", match: { kind: "term", term: "say" }, text: "say" },
    { occur: "should", match: { kind: "term", term: "invoic" }, text: "invoices" },
  ]);
  assert.deepEqual(
    parseSearchQuery("The Who").map((c) => [c.occur, c.text]),
    [
      ["should", "the"],
      ["should", "who"],
    ],
  );
  // A quoted stopword is asked for.
  assert.deepEqual(
    parseSearchQuery('"the" band').map((c) => c.text),
    ['"the"', "band"],
  );
});

test("+required, -excluded, phrases and prefixes", () => {
  assert.deepEqual(parseSearchQuery('+invoice -draft "tax refund" plumb* -"old news"'), [
    { occur: "must", match: { kind: "term", term: "invoic" }, text: "invoice" },
    { occur: "not", match: { kind: "term", term: "draft" }, text: "draft" },
    { occur: "should", match: { kind: "phrase", terms: ["tax", "refund"] }, text: '"tax refund"' },
    { occur: "should", match: { kind: "prefix", prefixes: ["plumb"] }, text: "plumb*" },
    { occur: "not", match: { kind: "phrase", terms: ["old", "news"] }, text: '"old news"' },
  ]);
  // A prefix whose stem is no prefix of it keeps both (happy → happi).
  assert.deepEqual(parseSearchQuery("happy*")[0].match, { kind: "prefix", prefixes: ["happy", "happi"] });
  assert.deepEqual(parseSearchQuery("invoice*")[0].match, { kind: "prefix", prefixes: ["invoic"] });
  // One raw token of several words: optional words, or a phrase under an operator.
  assert.deepEqual(
    parseSearchQuery("e-mail -co-op").map((c) => [c.occur, c.match]),
    [
      ["should", { kind: "term", term: "e" }],
      ["should", { kind: "term", term: "mail" }],
      ["not", { kind: "phrase", terms: ["co", "op"] }],
    ],
  );
  // Operators need a word after them; a lone sign is nothing; an inner hyphen is no operator.
  assert.deepEqual(
    parseSearchQuery("- + x-ray").map((c) => c.text),
    ["x", "ray"],
  );
  assert.deepEqual(parseSearchQuery("***"), []);
  assert.deepEqual(parseSearchQuery("invoice invoices Invoice").length, 1);
});
