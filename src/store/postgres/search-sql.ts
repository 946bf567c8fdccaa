// tsquery construction from parsed search clauses: literal lexemes (pdpp's index terms) quoted into
// tsquery input syntax and passed as parameters (::tsquery), so no user text is ever read as
// tsquery operators.
import type { StreamScope } from "../../core/grant.js";
import { isPathGranted } from "../../core/projection.js";
import type { ClauseMatch, SearchClause } from "../../core/search-query.js";
import { quoteLexeme } from "./search-index.js";

/** One clause over the per-field rows (positions): 'w', ('p':* | 'q':*), or ('a' <-> 'b'). */
export function clauseQuery(match: ClauseMatch): string {
  if (match.kind === "term") return quoteLexeme(match.term);
  if (match.kind === "prefix") return `(${match.prefixes.map((p) => `${quoteLexeme(p)}:*`).join(" | ")})`;
  return `(${match.terms.map(quoteLexeme).join(" <-> ")})`;
}

/** Some of the clauses occurs (which search fields a hit matched in). */
export function anyClauseQuery(clauses: SearchClause[]): string {
  return clauses.map((c) => clauseQuery(c.match)).join(" | ");
}

/** Search fields indexed per stream (SQLite's FTS table has 16 columns; both stores agree). */
export const MAX_SEARCH_FIELDS = 16;

/** Search fields a scope may match on: declared searchable (first 16) and granted. */
export function grantedSearchFields(scope: StreamScope): string[] {
  return (scope.stream.query?.search ?? [])
    .slice(0, MAX_SEARCH_FIELDS)
    .filter((f) => isPathGranted(f, scope.fields));
}

/**
 * One clause over the record's lexeme row (field-tagged words, positions aside) in any of
 * `fields`: a phrase needs all its words in one field (its adjacency is checked on search_docs).
 */
export function taggedClause(match: ClauseMatch, fields: string[]): string {
  const tag = (field: string, word: string) => quoteLexeme(`${field}:${word}`);
  const inField = (field: string): string => {
    if (match.kind === "term") return tag(field, match.term);
    if (match.kind === "prefix") return match.prefixes.map((p) => `${tag(field, p)}:*`).join(" | ");
    return `(${match.terms.map((w) => tag(field, w)).join(" & ")})`;
  };
  return `(${fields.map(inField).join(" | ")})`;
}
