// The relevance bench's yardstick checked by hand: nDCG@10 with graded gains, Recall@100 and MRR@10
// as trec_eval/BEIR compute them, qrels parsing, the query forms and the FTS5 floor's OR query.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseQrels } from "../../bench/relevance-collection.js";
import { openFts5Floor, orOfWords } from "../../bench/relevance-floor.js";
import { meanScores, mrrAt, ndcgAt, type Qrels, recallAt } from "../../bench/relevance-metrics.js";
import { parseSmartQrels, parseSmartRecords } from "../../bench/relevance-smart.js";
import { documentFrequencies, queryForm, words } from "../../bench/relevance-words.js";

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test("nDCG@k: gain is the grade, discount log2(rank + 1), ideal over every judged relevant doc", () => {
  const judged = new Map([
    ["a", 2],
    ["b", 1],
    ["c", 0],
  ]);
  // DCG = 0/log2(2) + 2/log2(3) + 1/log2(4) = 1.2618595 + 0.5; IDCG = 2/log2(2) + 1/log2(3) = 2.6309298.
  close(ndcgAt(10, ["x", "a", "b", "c"], judged), 1.761859507142915 / 2.6309297535714578);
  close(ndcgAt(10, ["a", "b"], judged), 1);
  // Cut at k: a relevant doc at rank 3 does not count in nDCG@2.
  close(ndcgAt(2, ["x", "c", "a"], judged), 0);
  // A relevant doc never retrieved still counts in the ideal: 1 / (1 + 1/log2(3)).
  close(
    ndcgAt(
      10,
      ["a"],
      new Map([
        ["a", 1],
        ["b", 1],
      ]),
    ),
    0.6131471927654584,
  );
  // A doc repeated in a ranking counts once, at its first rank.
  close(ndcgAt(10, ["a", "a", "b"], judged), 1);
  close(ndcgAt(10, [], judged), 0);
});

test("Recall@k and MRR@k count only grades above 0", () => {
  const judged = new Map([
    ["a", 1],
    ["b", 2],
    ["z", 0],
  ]);
  close(recallAt(100, ["z", "b", "q"], judged), 0.5);
  close(recallAt(2, ["q", "r", "a", "b"], judged), 0);
  close(recallAt(4, ["q", "r", "a", "b"], judged), 1);
  close(mrrAt(10, ["z", "q", "b", "a"], judged), 1 / 3);
  close(mrrAt(2, ["z", "q", "b"], judged), 0);
  close(mrrAt(10, ["a"], judged), 1);
});

test("means skip queries with no relevant judgement and count an empty answer as a no-hit scoring 0", () => {
  const qrels: Qrels = new Map([
    ["q1", new Map([["a", 1]])],
    ["q2", new Map([["b", 1]])],
    ["q3", new Map([["c", 0]])], // no relevant doc: skipped, as BEIR does
  ]);
  const m = meanScores(
    new Map([
      ["q1", ["a"]],
      ["q2", []],
      ["q3", ["c"]],
    ]),
    qrels,
  );
  assert.deepEqual(m, { ndcg10: 0.5, recall100: 0.5, mrr10: 0.5, queries: 2, noHit: 1 });
  assert.throws(() => meanScores(new Map([["q1", ["a"]]]), qrels), /no ranking for judged query q2/);
});

test("qrels: BEIR header and three columns, or TREC's four", () => {
  const beir = parseQrels(["query-id\tcorpus-id\tscore", "1\t31715818\t1", "1\t7\t2", "3\t14717500\t1"]);
  assert.deepEqual(
    [...beir].map(([q, m]) => [q, [...m]]),
    [
      [
        "1",
        [
          ["31715818", 1],
          ["7", 2],
        ],
      ],
      ["3", [["14717500", 1]]],
    ],
  );
  const trec = parseQrels(["5 0 doc-1 2", "5 0 doc-2 0"]);
  assert.deepEqual(
    [...trec.get("5")!],
    [
      ["doc-1", 2],
      ["doc-2", 0],
    ],
  );
  assert.throws(() => parseQrels(["1 2"]), /qrels line 1/);
});

test("query forms: as written, without stopwords, and the three rarest words by document frequency", () => {
  assert.deepEqual(words("Café-au-lait: 10–20% OF ÉLÈVES"), [
    "cafe",
    "au",
    "lait",
    "10",
    "20",
    "of",
    "eleves",
  ]);
  const df = documentFrequencies(["orbit of the moon", "the moon and the sun", "sun sun", "orbits decay"]);
  assert.equal(df.get("the"), 2);
  assert.equal(df.get("sun"), 2);
  const q = "Does the Moon's orbit decay around the Sun?";
  assert.equal(queryForm("as-written", q, df), q);
  assert.equal(queryForm("no-stopwords", q, df), "moon s orbit decay around sun");
  // df: s 0, around 0, orbit 1, decay 1, moon 2, sun 2 → the three rarest are s, around, orbit.
  assert.equal(queryForm("keywords", q, df), "s orbit around");
  assert.equal(queryForm("keywords", "the of and", df), "");
});

test("the FTS5 floor ORs the query's quoted words and ranks by bm25()", () => {
  assert.equal(orOfWords('say "hi" OR NEAR(x*)'), '"say" OR "hi" OR "or" OR "near" OR "x"');
  assert.equal(orOfWords("*** ---"), null);
  const docs = [
    { id: "d1", title: "Orbits", text: "the orbit of a moon decays slowly" },
    { id: "d2", title: "Weather", text: "sun and rain" },
    { id: "d3", title: "Moon", text: "moon moon moon" },
  ];
  const plain = openFts5Floor(docs, "unicode61");
  const porter = openFts5Floor(docs, "porter");
  try {
    assert.deepEqual(plain.search("the orbits of the moon", 10), ["d1", "d3"]);
    assert.deepEqual(plain.search("orbits", 10), ["d1"]);
    assert.deepEqual(porter.search("orbits", 10), ["d1"]);
    assert.deepEqual(plain.search("decay", 10), []);
    assert.deepEqual(porter.search("decay", 10), ["d1"]);
    assert.deepEqual(plain.search("", 10), []);
  } finally {
    plain.close();
    porter.close();
  }
});

test("SMART files: .I records with their fields as one line each, and REL pairs judged relevant", () => {
  const all =
    ".I 1\r\n.T\r\nDewey  Decimal\r\n.A\r\nComaromi, J.P.\r\n.W\r\n   The present study\r\nis a history.\r\n.X\r\n1\t5\t1\r\n.I 2\r\n.T \r\nUse of Libraries\r\n.W\r\n";
  assert.deepEqual(parseSmartRecords(all), [
    {
      id: "1",
      fields: { T: "Dewey Decimal", A: "Comaromi, J.P.", W: "The present study is a history.", X: "1 5 1" },
    },
    { id: "2", fields: { T: "Use of Libraries", W: "" } },
  ]);
  const rel = parseSmartQrels(
    "     1     28\t0\t0.000000\r\n     1     35\t0\t0.000000\r\n    10   4\t0\t0.0\r\n",
  );
  assert.deepEqual(
    [...rel].map(([q, m]) => [q, [...m]]),
    [
      [
        "1",
        [
          ["28", 1],
          ["35", 1],
        ],
      ],
      ["10", [["4", 1]]],
    ],
  );
});
