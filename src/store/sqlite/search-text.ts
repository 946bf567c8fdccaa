// FTS5 text of the SQLite search index and MATCH expressions over it. Columns hold pdpp's index
// terms (core/search-analysis.ts) joined by spaces; the tokenizer only splits at those spaces, so
// index and query hold exactly the terms core code made.
import { analyzeTerms, searchableText } from "../../core/search-analysis.js";
import type { ClauseMatch, SearchClause } from "../../core/search-query.js";

/** Index text of any payload value: its index terms joined by spaces ("" when it has none). */
export function indexText(value: unknown): string {
  return analyzeTerms(searchableText(value)).join(" ");
}

// Terms hold only letters, marks and digits, so quoting them makes any FTS5 syntax inert.
function phrase(words: string[]): string {
  return `"${words.join(" ").replace(/"/g, '""')}"`;
}

/** One clause as an FTS5 expression: "t", ("p"* OR "q"*), or "a b c". */
export function clauseExpr(match: ClauseMatch): string {
  if (match.kind === "term") return phrase([match.term]);
  if (match.kind === "phrase") return phrase(match.terms);
  const alternatives = match.prefixes.map((p) => `${phrase([p])}*`);
  return alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(" OR ")})`;
}

function columnFilter(expr: string, columns: number[] | null): string {
  return columns ? `{${columns.map((c) => `c${c}`).join(" ")}} : (${expr})` : expr;
}

/**
 * `{c0 c2} : (("a") AND ("req")) NOT (("x") OR ("y"))`: records holding `clause` and every
 * required clause and no excluded one, all within the given columns (null: every column).
 */
export function clauseMatchExpr(clause: SearchClause, all: SearchClause[], columns: number[] | null): string {
  const required = all.filter((c) => c.occur === "must" && c !== clause);
  const excluded = all.filter((c) => c.occur === "not");
  const want = [clause, ...required].map((c) => `(${clauseExpr(c.match)})`).join(" AND ");
  const expr = excluded.length
    ? `(${want}) NOT (${excluded.map((c) => `(${clauseExpr(c.match)})`).join(" OR ")})`
    : want;
  return columnFilter(expr, columns);
}

/** `{c3} : ("a" OR "b"*)`: does any of the clauses occur in this one column. */
export function anyClauseExpr(clauses: SearchClause[], column: number): string {
  return columnFilter(clauses.map((c) => clauseExpr(c.match)).join(" OR "), [column]);
}
