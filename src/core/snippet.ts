// Search snippets: a short window of source text centred on the first match, HTML-escaped, with
// balanced <mark>…</mark> around matched words (token rules of core/search-query.ts).
import type { SearchTerm } from "./search-query.js";

const WORD_RE = /[\p{L}\p{M}\p{N}]+/gu;
const ELLIPSIS = "…";

interface Token {
  start: number; // UTF-16 index
  end: number;
  word: string; // lowercased
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    tokens.push({ start: m.index, end: m.index + m[0].length, word: m[0].toLowerCase() });
  }
  return tokens;
}

/** Indexes of tokens matched by any term (every word of an occurring phrase is matched). */
function matchedTokenIndexes(tokens: Token[], terms: SearchTerm[]): Set<number> {
  const matched = new Set<number>();
  for (const term of terms) {
    if (term.kind !== "phrase") {
      tokens.forEach((t, i) => {
        if (term.kind === "word" ? t.word === term.text : t.word.startsWith(term.text)) matched.add(i);
      });
    } else {
      const n = term.words.length;
      for (let i = 0; i + n <= tokens.length; i++) {
        if (term.words.every((w, k) => tokens[i + k].word === w))
          for (let k = 0; k < n; k++) matched.add(i + k);
      }
    }
  }
  return matched;
}

/**
 * A necessary condition for `term` to occur: a token matching it is a substring of the text, and
 * lowercasing the whole text lowercases each token as it does alone (tokens are maximal runs of
 * letters, marks and digits, so the one context rule, final sigma, sees the same neighbours).
 * Far cheaper than tokenising a long text that holds none of the terms.
 */
function mayOccur(lowered: string, term: SearchTerm): boolean {
  return term.kind === "phrase" ? term.words.every((w) => lowered.includes(w)) : lowered.includes(term.text);
}

/** True when at least one term occurs in the text (a field's membership in matched_fields). */
export function matchesTerms(text: string, terms: SearchTerm[]): boolean {
  const lowered = text.toLowerCase();
  if (!terms.some((term) => mayOccur(lowered, term))) return false;
  return matchedTokenIndexes(tokenize(text), terms).size > 0;
}

/** True when every term occurs in the text. */
export function matchesAllTerms(text: string, terms: SearchTerm[]): boolean {
  const lowered = text.toLowerCase();
  if (!terms.every((term) => mayOccur(lowered, term))) return false;
  const tokens = tokenize(text);
  return terms.every((term) => matchedTokenIndexes(tokens, [term]).size > 0);
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
  terms: SearchTerm[],
  options: { maxChars?: number } = {},
): string | null {
  return analyzeText(text, terms).snippet(options);
}

const NO_MATCH = { matches: false, snippet: () => null };

/** A text tokenised once for a term set: whether any term occurs, and its snippet on demand. */
export function analyzeText(
  text: string,
  terms: SearchTerm[],
): { matches: boolean; snippet: (options?: { maxChars?: number }) => string | null } {
  const lowered = text.toLowerCase();
  if (!terms.some((term) => mayOccur(lowered, term))) return NO_MATCH;
  const tokens = tokenize(text);
  const matched = matchedTokenIndexes(tokens, terms);
  return {
    matches: matched.size > 0,
    snippet: (options = {}) => snippetOf(text, { tokens, matched, maxChars: options.maxChars ?? 240 }),
  };
}

function snippetOf(
  text: string,
  analysis: { tokens: Token[]; matched: Set<number>; maxChars: number },
): string | null {
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
  return out.trim() === "" ? null : out;
}
