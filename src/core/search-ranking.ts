// Search ranking, shared by SQLite and Postgres: which visible matches are scored, with what
// statistics, and in what order. The stores only supply primitives with identical semantics
// (pinned by test/store/contract/search*.ts): per positive clause, its visible matches (record ids,
// newest first, at most `enumerateLimit(rankWindow) + 1`), and for the records chosen here their
// keys and granted search-field texts. Everything that decides an answer is computed here, from
// those, in one order of floating-point operations: both stores give bit-identical scores.
//
// Plan (issue 18). Phase 1: each positive clause's visible matches are enumerated up to a limit.
// A clause under it is "counted": its matches are known exactly, and all are candidates; a clause
// past it offers its newest rankWindow matches. Every candidate is scored when all clauses were
// counted and at most 4 × rankWindow records match; otherwise the `rankWindow` best by phase-1
// weight (the idf of the clauses whose lists hold the record: rare words first) go on, ties to
// the newest. Phase 2: those
// candidates are scored with BM25F from their own granted fields (term frequencies and lengths
// read from the text, title field weighted), and ordered by score, then the contract's tie order.
//
// Statistics (noninterference, 10-data-model.md: computed over visible data only):
// - every positive clause counted: N = the visible matches of the query, df = each clause's
//   visible matches, avgdl = mean weighted length of the scored candidates;
// - otherwise (a clause matches more than the limit): N, df and avgdl over the scored candidates.
// Recall is complete only when every visible match was scored (every clause counted and at most
// 4 × rankWindow matches); matched_estimate is the number of distinct visible matches seen.
// Past the first window, pages rank the next windows (planCandidates' `window`), each scored with
// the same rules over its own candidates.
import { analyzeTerms, tallyAsciiTerms } from "./search-analysis.js";
import { type ClauseMatch, positiveClauses, type SearchClause, termMatches } from "./search-query.js";

const K1 = 1.2;
const B = 0.75;
/** Weight of the stream's title_field when the manifest sets none. */
export const DEFAULT_TITLE_WEIGHT = 2;

/** Every match is scored when each clause was counted and at most this many rank windows match. */
const SCORE_ALL = 4;

/**
 * How many matches of one clause a store enumerates (plus one, to know it has more): 2,000 for the
 * deployed window of 100. On SciFact, 800 left common words uncounted and statistics local to the
 * scored candidates: nDCG@10 0.661 against 0.683 with 2,000.
 */
export function enumerateLimit(rankWindow: number): number {
  return rankWindow * 20;
}

/** One positive clause's visible matches as a store found them (across every searched scope). */
export interface ClauseHits {
  /**
   * Distinct record ids (store row ids, insertion order), newest first per scope: all of a
   * scope's matches when at most the limit, else (at least) its newest rankWindow.
   */
  ids: number[];
  /** Matches counted: exact when not capped, else the limit + 1 per capped scope at least. */
  count: number;
  /** True when some scope held more than the limit. */
  capped: boolean;
}

export interface CandidatePlan {
  /** Records to score: every match (complete), else one window of at most rankWindow. */
  ids: number[];
  /** Every visible match is among `ids`. */
  complete: boolean;
  /** Distinct visible matches seen (in the window's view of the clause lists). */
  seen: number;
  /** N and df when every clause was counted (else taken over the scored records). */
  counted: { n: number; df: number[] } | null;
  /** Per positive clause, the candidates its store list holds (a match it has, read or not). */
  members: Set<number>[];
  /** Which ranked window `ids` are: 0 when complete; window k holds ranks k·rankWindow onwards. */
  window: number;
  /** Candidates remain past this window (the next window ranks them). */
  more: boolean;
}

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The ranked window holding result `offset` when the plan is windowed. */
export function windowOf(offset: number, rankWindow: number): number {
  return Math.floor(offset / rankWindow);
}

/**
 * How many of its newest matches a clause past the enumerate limit offers for the window holding
 * `offset`: (window + 1) × rankWindow. Stores return that many for such a clause (and every
 * match of the others), counting at most limit + 1 per scope either way.
 */
export function offerFor(offset: number, rankWindow: number): number {
  return (windowOf(offset, rankWindow) + 1) * rankWindow;
}

/** The best `room` of the weighted ids, ties to the newest (whole weight groups, the cut sorted). */
function best(weight: Map<number, number>, room: number): number[] {
  // Weights take few distinct values, so whole groups are taken in weight order and only the
  // group at the cut is sorted (phase 2 orders the rest).
  const groups = new Map<number, number[]>();
  for (const [id, w] of weight) {
    const group = groups.get(w);
    if (group) group.push(id);
    else groups.set(w, [id]);
  }
  const ids: number[] = [];
  for (const w of [...groups.keys()].sort((a, b) => b - a)) {
    const group = groups.get(w) as number[];
    const left = room - ids.length;
    if (group.length <= left) ids.push(...group);
    else {
      ids.push(...group.sort((a, b) => b - a).slice(0, left));
      break;
    }
  }
  return ids;
}

/**
 * Phase 1: the candidates to score, from each positive clause's enumerated matches. Every match
 * is scored when all are known and few; otherwise ranking goes window by window: window k takes
 * the best rankWindow by weight among the matches not in windows 0…k-1, where a clause past the
 * limit offers its newest (k + 1) × rankWindow. Window k is computed identically whichever page
 * asks (each window's view extends the previous one's), so pages partition the ranked windows.
 */
export function planCandidates(hits: ClauseHits[], rankWindow: number, window = 0): CandidatePlan {
  // A clause past the limit offers its newest matches as candidates: older ones are candidates
  // only through rarer clauses (that is what "rare terms first" means).
  const view = (k: number) => hits.map((h) => (h.capped ? h.ids.slice(0, (k + 1) * rankWindow) : h.ids));
  const lists = view(0);
  const first = new Set<number>();
  for (const list of lists) for (const id of list) first.add(id);
  const allCounted = hits.every((h) => !h.capped);
  const counted = allCounted ? { n: first.size, df: hits.map((h) => h.count) } : null;
  // Every match is scored when all are known and few: a rare word's matches are then ranked by
  // BM25, not by recency (phase 1 cannot tell them apart).
  if (allCounted && first.size <= SCORE_ALL * rankWindow) {
    const members = lists.map((list) => new Set(list));
    return { ids: [...first], complete: true, seen: first.size, counted, members, window: 0, more: false };
  }
  const chosen = new Set<number>();
  let plan: CandidatePlan | null = null;
  for (let k = 0; k <= window; k++) {
    const listsK = k === 0 ? lists : view(k);
    const weight = new Map<number, number>();
    for (const list of listsK) for (const id of list) weight.set(id, 0);
    const seen = weight.size;
    const members = listsK.map((list) => new Set(list));
    // Every match the first window sees fits in it: all are scored (in the order seen).
    if (k === 0 && seen <= rankWindow) {
      const ids = [...weight.keys()];
      for (const id of ids) chosen.add(id);
      plan = { ids, complete: false, seen, counted, members, window: 0, more: false };
    } else {
      listsK.forEach((list, i) => {
        const w = idf(Math.max(seen, hits[i].count), hits[i].count);
        for (const id of list) weight.set(id, (weight.get(id) ?? 0) + w);
      });
      for (const id of chosen) weight.delete(id);
      const ids = best(weight, rankWindow);
      for (const id of ids) chosen.add(id);
      plan = { ids, complete: false, seen, counted, members, window: k, more: weight.size > ids.length };
    }
    // A clause whose offer the view filled may hold more matches for the next window.
    if (hits.some((h) => h.capped && h.ids.length >= (k + 1) * rankWindow)) plan.more = true;
  }
  return plan as CandidatePlan;
}

/**
 * The page of a ranked plan: [start, end) into the ranked ids, whether results follow, and the
 * offset they start at. A windowed plan's page stays inside its window (window k starts at offset
 * k·rankWindow; a window holding fewer than rankWindow, when later ones follow, is left for the
 * next window's offset).
 */
export function pageOf(
  plan: CandidatePlan,
  ranked: number,
  query: { offset: number; limit: number; rankWindow: number },
): { start: number; end: number; hasMore: boolean; next: number } {
  if (plan.complete) {
    const end = Math.min(query.offset + query.limit, ranked);
    return { start: query.offset, end, hasMore: ranked > end, next: end };
  }
  const base = plan.window * query.rankWindow;
  const start = Math.min(query.offset - base, ranked);
  const end = Math.min(start + query.limit, ranked);
  if (end < ranked) return { start, end, hasMore: true, next: base + end };
  return { start, end, hasMore: plan.more, next: base + query.rankWindow };
}

/** A candidate's granted search fields, as its store read them, with their weights. */
export interface CandidateDoc {
  id: number;
  fields: { text: string; weight: number }[];
}

/** Occurrences of a phrase: runs of its terms in order. */
function phraseCount(terms: string[], phrase: string[]): number {
  let n = 0;
  for (let i = 0; i + phrase.length <= terms.length; i++) {
    let k = 0;
    while (k < phrase.length && terms[i + k] === phrase[k]) k++;
    if (k === phrase.length) n++;
  }
  return n;
}

/** Occurrences of a clause in a field, from its terms and their counts. */
function countIn(field: { terms: string[]; counts: Map<string, number> }, match: ClauseMatch): number {
  if (match.kind === "term") return field.counts.get(match.term) ?? 0;
  if (match.kind === "phrase") return phraseCount(field.terms, match.terms);
  let n = 0;
  for (const [term, count] of field.counts) if (termMatches(match, term)) n += count;
  return n;
}

/** Phase 2: BM25F scores of the candidates (same order as `docs`). */
export function scoreCandidates(
  clauses: SearchClause[],
  docs: CandidateDoc[],
  plan: CandidatePlan,
): number[] {
  const positive = positiveClauses(clauses);
  // Single-term clauses are counted in one pass over a field's terms through a term → clauses
  // table; only prefixes and phrases need the field's distinct terms or its sequence.
  const byTerm = new Map<string, number[]>();
  const other: number[] = [];
  positive.forEach((c, i) => {
    if (c.match.kind !== "term") other.push(i);
    else {
      const list = byTerm.get(c.match.term);
      if (list) list.push(i);
      else byTerm.set(c.match.term, [i]);
    }
  });
  const fieldCounts = new Array<number>(positive.length);
  // Weighted term frequency per (doc, clause) and weighted length per doc.
  const tf: number[][] = [];
  const dl: number[] = [];
  for (const doc of docs) {
    const row = positive.map(() => 0);
    let length = 0;
    for (const field of doc.fields) {
      fieldCounts.fill(0);
      if (other.length === 0) {
        const tally = tallyAsciiTerms(field.text, byTerm, fieldCounts);
        if (tally === 0) continue;
        if (tally > 0) {
          length += field.weight * tally;
          for (let i = 0; i < row.length; i++) row[i] += field.weight * fieldCounts[i];
          continue;
        }
      }
      const terms = analyzeTerms(field.text);
      if (terms.length === 0) continue;
      length += field.weight * terms.length;
      for (const t of terms) {
        const list = byTerm.get(t);
        if (list) for (const i of list) fieldCounts[i]++;
      }
      if (other.length > 0) {
        const counts = new Map<string, number>();
        for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
        for (const i of other) fieldCounts[i] = countIn({ terms, counts }, positive[i].match);
      }
      for (let i = 0; i < row.length; i++) row[i] += field.weight * fieldCounts[i];
    }
    // A match the read text does not show (past a text field's first chunk, which is all that
    // is read) counts once: the store found the clause in a granted field.
    for (let i = 0; i < row.length; i++) if (row[i] === 0 && plan.members[i]?.has(doc.id)) row[i] = 1;
    tf.push(row);
    dl.push(length);
  }
  let total = 0;
  for (const d of dl) total += d;
  const avgdl = docs.length > 0 && total > 0 ? total / docs.length : 1;
  const n = plan.counted ? plan.counted.n : docs.length;
  const weights = positive.map((_, i) => {
    const df = plan.counted ? plan.counted.df[i] : tf.filter((row) => row[i] > 0).length;
    return idf(n, df);
  });
  return tf.map((row, d) => {
    const norm = K1 * (1 - B + (B * dl[d]) / avgdl);
    let score = 0;
    row.forEach((f, i) => {
      if (f > 0) score += (weights[i] * f * (K1 + 1)) / (f + norm);
    });
    return score;
  });
}

/** The weight of a search field: the manifest's search_weights, else 2 for the title field, else 1. */
export function fieldWeight(
  stream: { title_field?: string; query?: { search_weights?: Record<string, number> } },
  field: string,
): number {
  const set = stream.query?.search_weights?.[field];
  if (set !== undefined) return set;
  return field === stream.title_field ? DEFAULT_TITLE_WEIGHT : 1;
}

/** A score as hits show it (order uses the exact value). */
export function displayScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
