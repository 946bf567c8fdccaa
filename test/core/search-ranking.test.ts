// Unit tests for the shared search ranking: the candidate plan and BM25F scores, exact values.
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeTerms, tallyAsciiTerms } from "../../src/core/search-analysis.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import {
  fieldWeight,
  offerFor,
  pageOf,
  planCandidates,
  scoreCandidates,
} from "../../src/core/search-ranking.js";

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
/** Equal up to rounding (the formula here adds in another order than the ranking code). */
const close = (actual: number[], expected: number[]) => {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => {
    assert.ok(Math.abs(a - expected[i]) < 1e-12, `${a} vs ${expected[i]} at ${i}`);
  });
};
const bm25 = (f: number, dl: number, avgdl: number) => (f * 2.2) / (f + 1.2 * (0.25 + (0.75 * dl) / avgdl));

test("every clause counted and few matches: all scored, N and df over the visible matches", () => {
  const plan = planCandidates(
    [
      { ids: [3, 2], count: 2, capped: false },
      { ids: [2, 1], count: 2, capped: false },
    ],
    10,
  );
  assert.deepEqual(plan, {
    ids: [3, 2, 1],
    complete: true,
    seen: 3,
    counted: { n: 3, df: [2, 2] },
    members: [new Set([3, 2]), new Set([2, 1])],
    window: 0,
    more: false,
  });
  const clauses = parseSearchQuery("alpha beta");
  const docs = [
    { id: 3, fields: [{ text: "alpha gamma gamma", weight: 1 }] },
    { id: 2, fields: [{ text: "alpha beta", weight: 2 }] },
    { id: 1, fields: [{ text: "beta", weight: 1 }] },
  ];
  const scores = scoreCandidates(clauses, docs, plan);
  // Weighted lengths 3, 4, 1: avgdl 8/3; the title-weighted doc counts its words twice.
  const avgdl = 8 / 3;
  const w = idf(3, 2);
  close(scores, [w * bm25(1, 3, avgdl), 2 * w * bm25(2, 4, avgdl), w * bm25(1, 1, avgdl)]);
});

test("past rankWindow: rarer clauses first, ties to the newest; a capped clause makes stats local", () => {
  // Every clause counted and at most 4 windows of matches: all are scored.
  const few = planCandidates([{ ids: [9, 8, 7, 6, 5], count: 5, capped: false }], 2);
  assert.deepEqual([few.ids, few.complete], [[9, 8, 7, 6, 5], true]);
  const plan = planCandidates(
    [
      { ids: [9, 8, 7, 6, 5], count: 5, capped: false },
      { ids: [5, 1], count: 2, capped: false },
    ],
    1,
  );
  // 5 holds both words: the best candidate.
  assert.deepEqual(plan.ids, [5]);
  const three = planCandidates(
    [
      { ids: [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5], count: 15, capped: false },
      { ids: [5, 1], count: 2, capped: false },
    ],
    3,
  );
  // 5 holds both; 1 holds the rare clause; then the newest of the rest.
  assert.deepEqual(three.ids, [5, 1, 19]);
  assert.equal(plan.complete, false);
  assert.equal(plan.seen, 6);
  assert.equal(three.seen, 16);
  const capped = planCandidates([{ ids: [4, 3], count: 81, capped: true }], 10);
  assert.equal(capped.complete, false);
  assert.equal(capped.counted, null);
  const scores = scoreCandidates(
    parseSearchQuery("alpha"),
    [
      { id: 4, fields: [{ text: "alpha", weight: 1 }] },
      { id: 3, fields: [{ text: "alpha alpha beta", weight: 1 }] },
    ],
    capped,
  );
  close(scores, [idf(2, 2) * bm25(1, 1, 2), idf(2, 2) * bm25(2, 3, 2)]);
});

test("phrases count adjacent runs; prefixes any term they start; excluded clauses score nothing", () => {
  const plan = {
    ids: [1],
    complete: true,
    seen: 1,
    counted: { n: 1, df: [1, 1] },
    members: [],
    window: 0,
    more: false,
  };
  const [score] = scoreCandidates(
    parseSearchQuery('"red car" blu* -green'),
    [{ id: 1, fields: [{ text: "red car, red bus, blue car, bluer green", weight: 1 }] }],
    plan,
  );
  const w = idf(1, 1);
  close([score], [w * bm25(1, 9, 9) + w * bm25(2, 9, 9)]);
});

test("a match the read text does not show counts once for the clauses whose lists hold it", () => {
  const plan = planCandidates([{ ids: [7], count: 1, capped: false }], 10);
  const [score] = scoreCandidates(
    parseSearchQuery("zebra"),
    [{ id: 7, fields: [{ text: "no such word", weight: 1 }] }],
    plan,
  );
  close([score], [idf(1, 1) * bm25(1, 3, 3)]);
});

test("field weights: manifest's, else 2 for the title field, else 1", () => {
  const stream = { title_field: "subject", query: { search_weights: { body: 0.5 } } };
  assert.equal(fieldWeight(stream, "subject"), 2);
  assert.equal(fieldWeight(stream, "body"), 0.5);
  assert.equal(fieldWeight(stream, "from"), 1);
  assert.equal(
    fieldWeight({ title_field: "subject", query: { search_weights: { subject: 1 } } }, "subject"),
    1,
  );
});

test("scoring's ASCII tally counts what the index terms hold, stemming only words that can match", () => {
  const words = [
    "Dying",
    "lying",
    "skies",
    "SKIS",
    "orbits",
    "Orbiting",
    "news",
    "happy",
    "happiness",
    "e-mail",
    "x2",
    "2024",
    "the",
    "ugly",
    "early",
    "yes",
    "Yes",
    "y",
    "ies",
    "sses",
    "abc123",
    "ZZZ",
  ];
  const texts = [
    words.join(" "),
    words.slice().reverse().join(", "),
    `${"a".repeat(1025)} die ${"b".repeat(1024)} sky`,
    "",
    "---",
  ];
  for (const query of ["die sky orbit", "news happi", "x2 2024 e mail", "lie ugli earli ye y", "a b"]) {
    const wanted = new Map<string, number[]>();
    query.split(" ").forEach((t, i) => {
      wanted.set(t, [...(wanted.get(t) ?? []), i]);
    });
    for (const text of texts) {
      const counts = query.split(" ").map(() => 0);
      const n = tallyAsciiTerms(text, wanted, counts);
      const terms = analyzeTerms(text);
      assert.equal(n, terms.length, text);
      assert.deepEqual(
        counts,
        query.split(" ").map((t) => terms.filter((x) => x === t).length),
        `${query} in ${text}`,
      );
    }
  }
  assert.equal(tallyAsciiTerms("café", new Map(), []), -1);
});

test("past the first window: window k ranks the best not in windows 0…k-1; capped clauses offer more", () => {
  // Every clause counted, 15 + 2 matches, window 3 (scored all only up to 12): windowed.
  const counted = [
    { ids: [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5], count: 15, capped: false },
    { ids: [5, 1], count: 2, capped: false },
  ];
  const windows = [0, 1, 2, 3, 4, 5].map((k) => planCandidates(counted, 3, k));
  assert.deepEqual(windows[0].ids, [5, 1, 19]);
  assert.deepEqual(windows[1].ids, [18, 17, 16]);
  const all = windows.flatMap((w) => w.ids);
  assert.equal(new Set(all).size, all.length, "no record in two windows");
  assert.deepEqual(
    [...all].sort((a, b) => a - b),
    [1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
  );
  assert.deepEqual(
    windows.map((w) => w.more),
    [true, true, true, true, true, false],
  );
  // A capped clause offers its newest (k + 1) × window: window 1 reaches older matches.
  const capped = (offer: number) => [
    { ids: Array.from({ length: offer }, (_, i) => 1000 - i), count: 61, capped: true },
    { ids: [3], count: 1, capped: false },
  ];
  const w0 = planCandidates(capped(offerFor(0, 3)), 3, 0);
  const w0deep = planCandidates(capped(offerFor(3, 3)), 3, 0);
  assert.deepEqual(w0deep.ids, w0.ids, "window 0 is the same whichever page asks");
  assert.deepEqual(w0.ids, [3, 1000, 999]);
  const w1 = planCandidates(capped(offerFor(3, 3)), 3, 1);
  assert.deepEqual([w1.ids, w1.window, w1.more, w1.complete], [[998, 997, 996], 1, true, false]);
});

test("pages of a windowed plan stay in their window; a short window sends the cursor to the next", () => {
  const plan = { ids: [], complete: false, seen: 0, counted: null, members: [], window: 1, more: true };
  assert.deepEqual(pageOf(plan, 10, { offset: 12, limit: 5, rankWindow: 10 }), {
    start: 2,
    end: 7,
    hasMore: true,
    next: 17,
  });
  assert.deepEqual(pageOf(plan, 10, { offset: 17, limit: 5, rankWindow: 10 }), {
    start: 7,
    end: 10,
    hasMore: true,
    next: 20,
  });
  assert.deepEqual(pageOf({ ...plan, more: false }, 4, { offset: 10, limit: 5, rankWindow: 10 }), {
    start: 0,
    end: 4,
    hasMore: false,
    next: 20,
  });
  const complete = { ...plan, complete: true, window: 0, more: false };
  assert.deepEqual(pageOf(complete, 30, { offset: 25, limit: 10, rankWindow: 10 }), {
    start: 25,
    end: 30,
    hasMore: false,
    next: 30,
  });
});
