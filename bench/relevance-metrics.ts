// Relevance metrics of the judged-collection bench, as trec_eval and BEIR compute them: nDCG@k with
// graded gains, Recall@k and MRR@k, per query and averaged over the judged queries.
//
// - nDCG@k: DCG = Σ_{i=1..k} grade(doc_i) / log2(i + 1) (gain = the judged grade, not 2^grade − 1,
//   as trec_eval's ndcg_cut and BEIR's pytrec_eval); the ideal DCG ranks every judged doc of grade > 0
//   by grade. Unjudged docs and grades ≤ 0 gain nothing.
// - Recall@k: judged relevant (grade > 0) docs in the first k ÷ all judged relevant docs.
// - MRR@k: 1 / rank of the first relevant doc in the first k, else 0.
// - A query with no judged relevant doc is skipped (BEIR). A query that returned nothing scores 0
//   and still counts in the mean (trec_eval -c): an engine is not rewarded for answering nothing.
// - A ranking is taken as given; a doc id repeated in it counts once, at its first rank.

/** Judgements: query id → (doc id → grade). */
export type Qrels = Map<string, Map<string, number>>;

export interface QueryScores {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

export interface MeanScores extends QueryScores {
  /** Judged queries averaged over (those with a relevant doc). */
  queries: number;
  /** Of those, the queries whose ranking was empty. */
  noHit: number;
}

function firstOccurrences(ranking: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranking) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

export function ndcgAt(k: number, ranking: readonly string[], judged: ReadonlyMap<string, number>): number {
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  for (const [i, g] of ideal.entries()) idcg += g / Math.log2(i + 2);
  if (idcg === 0) return 0;
  let dcg = 0;
  for (const [i, id] of firstOccurrences(ranking).slice(0, k).entries()) {
    const g = judged.get(id) ?? 0;
    if (g > 0) dcg += g / Math.log2(i + 2);
  }
  return dcg / idcg;
}

export function recallAt(k: number, ranking: readonly string[], judged: ReadonlyMap<string, number>): number {
  const relevant = [...judged].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(firstOccurrences(ranking).slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mrrAt(k: number, ranking: readonly string[], judged: ReadonlyMap<string, number>): number {
  for (const [i, id] of firstOccurrences(ranking).slice(0, k).entries()) {
    if ((judged.get(id) ?? 0) > 0) return 1 / (i + 1);
  }
  return 0;
}

/** True when the query has at least one judged doc of grade > 0 (BEIR evaluates only those). */
export function isJudged(judged: ReadonlyMap<string, number> | undefined): boolean {
  return judged !== undefined && [...judged.values()].some((g) => g > 0);
}

export function scoreQuery(ranking: readonly string[], judged: ReadonlyMap<string, number>): QueryScores {
  return {
    ndcg10: ndcgAt(10, ranking, judged),
    recall100: recallAt(100, ranking, judged),
    mrr10: mrrAt(10, ranking, judged),
  };
}

/**
 * Means over the judged queries of `qrels` that `rankings` was asked for (a query id missing from
 * `rankings` is an error: the caller ran a subset and must pass that subset's qrels).
 */
export function meanScores(rankings: ReadonlyMap<string, readonly string[]>, qrels: Qrels): MeanScores {
  const sum = { ndcg10: 0, recall100: 0, mrr10: 0 };
  let queries = 0;
  let noHit = 0;
  for (const [qid, judged] of qrels) {
    if (!isJudged(judged)) continue;
    const ranking = rankings.get(qid);
    if (ranking === undefined) throw new Error(`no ranking for judged query ${qid}`);
    const s = scoreQuery(ranking, judged);
    sum.ndcg10 += s.ndcg10;
    sum.recall100 += s.recall100;
    sum.mrr10 += s.mrr10;
    queries++;
    if (ranking.length === 0) noHit++;
  }
  const mean = (x: number) => (queries === 0 ? 0 : x / queries);
  return {
    ndcg10: mean(sum.ndcg10),
    recall100: mean(sum.recall100),
    mrr10: mean(sum.mrr10),
    queries,
    noHit,
  };
}
