// Search snippets: a short window of source text centred on the first match, HTML-escaped, with
// balanced <mark>…</mark> around matched words — matched by their index terms
// (core/search-analysis.ts), so stemmed and diacritic-folded forms are highlighted too.
import { type AnalyzedToken, analyzeTokens, foldWord } from "./search-analysis.js";
import { type ClauseMatch, positiveClauses, type SearchClause, termMatches } from "./search-query.js";
import { codePointLength } from "./text-chunks.js";

const ELLIPSIS = "…";

type Token = AnalyzedToken;

/** Indexes of tokens matched by any positive clause (every word of an occurring phrase). */
function matchedTokenIndexes(tokens: Token[], matches: ClauseMatch[]): Set<number> {
  const matched = new Set<number>();
  for (const match of matches) {
    if (match.kind !== "phrase") {
      tokens.forEach((t, i) => {
        if (termMatches(match, t.term)) matched.add(i);
      });
    } else {
      const n = match.terms.length;
      for (let i = 0; i + n <= tokens.length; i++) {
        if (match.terms.every((w, k) => tokens[i + k].term === w))
          for (let k = 0; k < n; k++) matched.add(i + k);
      }
    }
  }
  return matched;
}

/**
 * A substring a folded token must contain for its term to be `term`: a Porter2 stem keeps the
 * word's letters but for its last (happy → happi) and, in three-letter exceptions, its second
 * (dying → die), so the term less its last letter, or its first letter when that leaves ≤ 2.
 */
function keyOf(term: string): string {
  return term.length <= 3 ? term.slice(0, 1) : term.slice(0, -1);
}

/**
 * A necessary condition for a clause to occur in a text, on the whole text folded at once
 * (lowercasing and stripping diacritics per token agree with doing it to the whole text: tokens
 * are maximal runs of letters, marks and digits). Far cheaper than tokenising a long text that
 * holds none of the clauses.
 */
function mayOccur(folded: string, match: ClauseMatch): boolean {
  if (match.kind === "term") return folded.includes(keyOf(match.term));
  if (match.kind === "prefix") return match.prefixes.some((p) => folded.includes(keyOf(p)));
  return match.terms.every((t) => folded.includes(keyOf(t)));
}

function positiveMatches(clauses: SearchClause[]): ClauseMatch[] {
  return positiveClauses(clauses).map((c) => c.match);
}

/** True when at least one positive clause occurs in the text (a field's membership in matched_fields). */
export function matchesTerms(text: string, clauses: SearchClause[]): boolean {
  return analyzeText(text, clauses).matches;
}

/** True when every positive clause occurs in the text. */
export function matchesAllTerms(text: string, clauses: SearchClause[]): boolean {
  const matches = positiveMatches(clauses);
  const folded = foldWord(text);
  if (!matches.every((m) => mayOccur(folded, m))) return false;
  const tokens = analyzeTokens(text);
  return matches.every((m) => matchedTokenIndexes(tokens, [m]).size > 0);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Cut edges: move off surrogate halves and, when close, to whitespace so words stay whole. */
function snapWindow(text: string, start: number, end: number, anchor: { start: number; end: number }) {
  let s = start;
  let e = end;
  if (s > 0) {
    const ws = text.slice(s, Math.min(anchor.start, s + 24)).search(/\s/u);
    if (ws >= 0) s += ws + 1;
    if (s > 0 && isHighSurrogate(text.charCodeAt(s - 1))) s += 1;
  }
  if (e < text.length) {
    const region = text.slice(Math.max(anchor.end, e - 24), e);
    const ws = region.search(/\s[^\s]*$/u);
    if (ws >= 0) e = Math.max(anchor.end, e - 24) + ws;
    if (isHighSurrogate(text.charCodeAt(e - 1))) e -= 1;
  }
  return { s, e };
}

/**
 * A snippet of at most about `maxChars` source characters around the first matched word, with
 * `<mark>` tags, `…` at cut edges and whitespace runs collapsed; null when nothing matches.
 */
export function buildSnippet(
  text: string,
  clauses: SearchClause[],
  options: { maxChars?: number } = {},
): string | null {
  return analyzeText(text, clauses).snippet(options);
}

/** A snippet and the code points [startChars, endChars) of `text` it shows. */
export interface SnippetSpan {
  text: string;
  startChars: number;
  endChars: number;
}

/** buildSnippet with the range of `text` it shows (the ladder's preview start/end). */
export function buildSnippetSpan(
  text: string,
  clauses: SearchClause[],
  options: { maxChars?: number } = {},
): SnippetSpan | null {
  return analyzeText(text, clauses).span(options);
}

const NO_MATCH = { matches: false, snippet: () => null, span: () => null };

/** A text tokenised once for a clause set: whether any positive clause occurs, and its snippet on demand. */
export function analyzeText(
  text: string,
  clauses: SearchClause[],
): {
  matches: boolean;
  snippet: (options?: { maxChars?: number }) => string | null;
  span: (options?: { maxChars?: number }) => SnippetSpan | null;
} {
  const matches = positiveMatches(clauses);
  const folded = foldWord(text);
  if (!matches.some((m) => mayOccur(folded, m))) return NO_MATCH;
  const tokens = analyzeTokens(text);
  const matched = matchedTokenIndexes(tokens, matches);
  return {
    matches: matched.size > 0,
    snippet: (options = {}) =>
      snippetOf(text, { tokens, matched, maxChars: options.maxChars ?? 240 })?.text ?? null,
    span: (options = {}) => snippetOf(text, { tokens, matched, maxChars: options.maxChars ?? 240 }),
  };
}

function snippetOf(
  text: string,
  analysis: { tokens: Token[]; matched: Set<number>; maxChars: number },
): SnippetSpan | null {
  const { tokens, matched, maxChars } = analysis;
  if (matched.size === 0) return null;
  const first = tokens[Math.min(...matched)];
  const matchLength = first.end - first.start;
  let start = Math.max(0, first.start - Math.floor((maxChars - matchLength) / 2));
  const end = Math.min(text.length, start + maxChars);
  start = Math.max(0, end - maxChars);
  const { s, e } = snapWindow(text, start, end, first);
  let out = s > 0 ? ELLIPSIS : "";
  let cursor = s;
  const plain = (from: number, to: number) => escapeHtml(text.slice(from, to).replace(/\s+/gu, " "));
  tokens.forEach((token, i) => {
    if (!matched.has(i) || token.start < s || token.end > e) return;
    out += `${plain(cursor, token.start)}<mark>${escapeHtml(text.slice(token.start, token.end))}</mark>`;
    cursor = token.end;
  });
  out += plain(cursor, e);
  if (e < text.length) out += ELLIPSIS;
  if (out.trim() === "") return null;
  const startChars = codePointLength(text.slice(0, s));
  return { text: out, startChars, endChars: startChars + codePointLength(text.slice(s, e)) };
}
