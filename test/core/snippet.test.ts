// Unit tests for search snippets and matched-term checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSearchQuery } from "../../src/core/search-query.js";
import { buildSnippet, matchesAllTerms, matchesTerms } from "../../src/core/snippet.js";

test("buildSnippet marks matched words and escapes the source", () => {
  assert.equal(
    buildSnippet("Tom & Jerry <b>eat</b> cheese", parseSearchQuery("cheese")),
    "Tom &amp; Jerry &lt;b&gt;eat&lt;/b&gt; <mark>cheese</mark>",
  );
  assert.equal(
    buildSnippet("Invoice INVOICES", parseSearchQuery("invoice*")),
    "<mark>Invoice</mark> <mark>INVOICES</mark>",
  );
  assert.equal(
    buildSnippet("the quick brown fox, brown dog", parseSearchQuery('"quick brown"')),
    "the <mark>quick</mark> <mark>brown</mark> fox, brown dog",
  );
  assert.equal(buildSnippet("nothing here", parseSearchQuery("cheese")), null);
});

test("buildSnippet centres a window on the first match with ellipses", () => {
  const text = `${"lorem ".repeat(100)}needle ${"ipsum ".repeat(100)}`;
  const snippet = buildSnippet(text, parseSearchQuery("needle"), { maxChars: 60 });
  assert.ok(snippet);
  assert.ok(snippet.startsWith("…") && snippet.endsWith("…"));
  assert.ok(snippet.includes("<mark>needle</mark>"));
  const plain = snippet.replace(/<\/?mark>/g, "");
  assert.ok(plain.length <= 62, `length ${plain.length}`);
  assert.equal((snippet.match(/<mark>/g) ?? []).length, (snippet.match(/<\/mark>/g) ?? []).length);
});

test("matchesTerms / matchesAllTerms", () => {
  const terms = parseSearchQuery("alpha beta*");
  assert.equal(matchesTerms("Alpha only", terms), true);
  assert.equal(matchesAllTerms("Alpha only", terms), false);
  assert.equal(matchesAllTerms("alpha BETAMAX", terms), true);
  assert.equal(matchesTerms("gamma", terms), false);
});
