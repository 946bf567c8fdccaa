// Normalised search text for the FTS5 index: lowercased word runs (core/search-query rules) joined
// by spaces, so index and query tokenise identically; and FTS5 MATCH expressions built from terms.
import type { SearchTerm } from "../../core/search-query.js";

const NON_WORD_RE = /[^\p{L}\p{M}\p{N}]+/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range spans all of ASCII on purpose
const NON_ASCII_RE = /[^\x00-\x7f]/;
const ASCII_WORD_RE = /[A-Za-z0-9]/;

/** Index text of any payload value: strings, numbers, booleans, and arrays/objects of them. */
export function searchableText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") {
    // ASCII text tokenises identically raw (the tokenizer splits on every ASCII non-alphanumeric
    // and folds ASCII case exactly like toLowerCase), so it is stored without a rewriting pass.
    if (!NON_ASCII_RE.test(value)) return ASCII_WORD_RE.test(value) ? value.trim() : "";
    return value.replace(NON_WORD_RE, " ").toLowerCase().trim();
  }
  if (typeof value === "number" || typeof value === "boolean") return searchableText(String(value));
  if (Array.isArray(value)) return value.map(searchableText).filter(Boolean).join(" ");
  if (typeof value === "object") return Object.values(value).map(searchableText).filter(Boolean).join(" ");
  return "";
}

// Terms hold only letters, marks and digits, so quoting them makes any FTS5 syntax inert.
function phrase(words: string[]): string {
  return `"${words.join(" ").replace(/"/g, '""')}"`;
}

function termExpr(term: SearchTerm): string {
  if (term.kind === "word") return phrase([term.text]);
  if (term.kind === "prefix") return `${phrase([term.text])}*`;
  return phrase(term.words);
}

/**
 * `{c0 c2} : ("a" AND "b"* AND "c d")`: every term, matched only in the given columns; without a
 * column filter when `columns` is null (FTS5 then ranks several times faster on long texts).
 */
export function matchAllExpr(terms: SearchTerm[], columns: number[] | null): string {
  const all = `(${terms.map(termExpr).join(" AND ")})`;
  return columns ? `{${columns.map((c) => `c${c}`).join(" ")}} : ${all}` : all;
}

/** `{c3} : ("a" OR "b"*)`: does any term occur in this one column. */
export function matchAnyExpr(terms: SearchTerm[], column: number): string {
  return `{c${column}} : (${terms.map(termExpr).join(" OR ")})`;
}

/**
 * `{c3} : ("a" OR ("b" AND "c") OR "d"*)`: does some term occur in this one column, a phrase
 * counting when all its words do (positions aside) — the per-field test of the ranking score.
 */
export function coverageExpr(terms: SearchTerm[], column: number): string {
  const any = terms.map((t) =>
    t.kind === "phrase" ? `(${t.words.map((w) => phrase([w])).join(" AND ")})` : termExpr(t),
  );
  return `{c${column}} : (${any.join(" OR ")})`;
}
