// Unit tests for search snippets and matched-term checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeTerms } from "../../src/core/search-analysis.js";
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
  // Stemmed and diacritic-folded forms are highlighted as they stand in the source.
  assert.equal(
    buildSnippet("The orbits of Café Moons", parseSearchQuery("orbit cafe moon")),
    "The <mark>orbits</mark> of <mark>Café</mark> <mark>Moons</mark>",
  );
  // Excluded words are never marked.
  assert.equal(buildSnippet("red and blue", parseSearchQuery("red -blue")), "<mark>red</mark> and blue");
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

test("the substring pre-check never changes an answer: random texts and terms against a token oracle", () => {
  // Words the generator draws from: case pairs, a Greek final sigma, a dotted capital I (its
  // lowercase is longer), combining marks, digits and letters of other scripts.
  const WORDS = [
    "Invoice",
    "invoices",
    "ΟΔΟΣ",
    "οδος",
    "İstanbul",
    "istanbul",
    "café",
    "cafe\u0301",
    "naïve",
    "x2",
    "東京",
    "ß",
    "SS",
    "tax",
    "Tax-refund",
    "dying",
    "Die",
    "skies",
    "sky",
    "happy",
    "happiness",
    "flies",
    "Running",
    "the",
  ];
  const SEPARATORS = [" ", ", ", "\n", "-", "…", "/"];
  let seed = 20_261_124;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const pick = <T>(xs: T[]) => xs[next(xs.length)];
  const tokens = (text: string) => analyzeTerms(text);
  for (let i = 0; i < 2_000; i++) {
    const text = Array.from({ length: 1 + next(8) }, () => pick(WORDS) + pick(SEPARATORS)).join("");
    const queryWords = Array.from({ length: 1 + next(2) }, () => pick(WORDS));
    const query =
      next(4) === 0
        ? `"${queryWords.join(" ")}"`
        : queryWords.map((w) => (next(3) === 0 ? `${w.slice(0, 3)}*` : w)).join(" ");
    const terms = parseSearchQuery(query);
    const have = tokens(text);
    const occurs = terms.map(({ match: t }) =>
      t.kind === "term"
        ? have.includes(t.term)
        : t.kind === "prefix"
          ? have.some((w) => t.prefixes.some((p) => w.startsWith(p)))
          : have.some((_, k) => t.terms.every((w, j) => have[k + j] === w)),
    );
    assert.equal(matchesTerms(text, terms), occurs.some(Boolean), `${query} in ${JSON.stringify(text)}`);
    assert.equal(matchesAllTerms(text, terms), occurs.every(Boolean), `${query} in ${JSON.stringify(text)}`);
    assert.equal(
      buildSnippet(text, terms) !== null,
      occurs.some(Boolean),
      `${query} in ${JSON.stringify(text)}`,
    );
  }
});
