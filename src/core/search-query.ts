// Parses the user's search `q` into clauses over index terms (core/search-analysis.ts) that no
// backend can misread as its own syntax: FTS5/tsquery operators in `q` are just text here.
//
// Semantics (20-rs-api.md "Search ranking and recall"): bare words are optional and ranked;
// `+word` is required, `-word` excluded, `"…"` a phrase (positions), `pre*` a prefix of index
// terms. Stopwords never decide whether a record matches: a bare stopword is dropped, unless the
// query holds nothing else (`the who`), when its words are kept. A word that one raw token splits
// into several (`e-mail`, `COVID-19`) gives several optional words; under `+`/`-` they form a
// phrase (`-e-mail` excludes "e mail", not every "e").
import { foldedWords, isStopword, termOf } from "./search-analysis.js";

export type ClauseMatch =
  | { kind: "term"; term: string }
  /** Index terms starting with any of these (the folded prefix and, when it differs, its stem). */
  | { kind: "prefix"; prefixes: string[] }
  | { kind: "phrase"; terms: string[] };

export type Occur = "should" | "must" | "not";

export interface SearchClause {
  occur: Occur;
  match: ClauseMatch;
  /** The clause as the user wrote it (folded), for meta.unmatched_terms. */
  text: string;
}

export const MAX_QUERY_CHARS = 1000;
const MAX_CLAUSES = 32;

interface RawPart {
  occur: Occur;
  quoted: boolean;
  text: string;
}

/** Whitespace-separated parts, each with its operator; a quote runs to the next quote or the end. */
function scan(q: string): RawPart[] {
  const parts: RawPart[] = [];
  let i = 0;
  while (i < q.length) {
    while (i < q.length && /\s/u.test(q[i])) i++;
    if (i >= q.length) break;
    let occur: Occur = "should";
    if ((q[i] === "+" || q[i] === "-") && i + 1 < q.length && !/\s/u.test(q[i + 1])) {
      occur = q[i] === "+" ? "must" : "not";
      i++;
    }
    if (q[i] === '"') {
      const close = q.indexOf('"', i + 1);
      const end = close < 0 ? q.length : close;
      parts.push({ occur, quoted: true, text: q.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    let j = i;
    while (j < q.length && !/\s/u.test(q[j]) && q[j] !== '"') j++;
    parts.push({ occur, quoted: false, text: q.slice(i, j) });
    i = j;
  }
  return parts;
}

function prefixClause(folded: string): ClauseMatch {
  const stemmed = termOf(folded);
  // The stem is nearly always a prefix of the word (invoice → invoic), so it alone finds every
  // term the word would; where it is not (happy → happi), both are kept.
  const prefixes = folded.startsWith(stemmed) ? [stemmed] : [folded, stemmed];
  return { kind: "prefix", prefixes };
}

interface Draft extends SearchClause {
  /** A bare optional stopword: dropped unless the query holds nothing else. */
  stop: boolean;
}

function draftsOf(part: RawPart): Draft[] {
  const words = foldedWords(part.text);
  if (words.length === 0) return [];
  const { occur } = part;
  if (part.quoted || (occur !== "should" && words.length > 1)) {
    const match: ClauseMatch =
      words.length === 1
        ? { kind: "term", term: termOf(words[0]) }
        : { kind: "phrase", terms: words.map(termOf) };
    return [{ occur, match, text: part.quoted ? `"${words.join(" ")}"` : words.join(" "), stop: false }];
  }
  const isPrefix = /[\p{L}\p{M}\p{N}]\*+$/u.test(part.text);
  return words.map((word, i) => {
    if (isPrefix && i === words.length - 1)
      return { occur, match: prefixClause(word), text: `${word}*`, stop: false };
    return {
      occur,
      match: { kind: "term", term: termOf(word) },
      text: word,
      stop: occur === "should" && isStopword(word),
    };
  });
}

/**
 * The clauses of `q`, deduplicated and bounded. Returns [] when `q` holds no searchable word (the
 * caller answers with no hits, not an error); a query of only exclusions has no positive clause
 * and matches nothing.
 */
export function parseSearchQuery(q: string): SearchClause[] {
  const drafts = scan(q).flatMap(draftsOf);
  const onlyStopwords = drafts.every((d) => d.stop || d.occur === "not");
  const kept = onlyStopwords ? drafts : drafts.filter((d) => !d.stop);
  const seen = new Set<string>();
  const out: SearchClause[] = [];
  for (const { occur, match, text } of kept) {
    const key = JSON.stringify([occur, match]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ occur, match, text });
    if (out.length === MAX_CLAUSES) break;
  }
  return out;
}

/** Clauses that can match and score a record (optional and required ones). */
export function positiveClauses(clauses: SearchClause[]): SearchClause[] {
  return clauses.filter((c) => c.occur !== "not");
}

/** True when a term matches a clause's single-term test (a word or one of its prefixes). */
export function termMatches(match: Exclude<ClauseMatch, { kind: "phrase" }>, term: string): boolean {
  return match.kind === "term" ? term === match.term : match.prefixes.some((p) => term.startsWith(p));
}
