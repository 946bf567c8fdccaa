// tsquery construction from parsed search terms: literal lexemes quoted into tsquery input syntax
// and passed as parameters (::tsquery), so no user text is ever read as tsquery operators.
import type { StreamScope } from "../../core/grant.js";
import { isPathGranted } from "../../core/projection.js";
import type { SearchTerm } from "../../core/search-query.js";
import { quoteLexeme } from "./search-index.js";

/** One term as tsquery text: 'w', 'w':*, or ('a' <-> 'b'). */
export function termQuery(term: SearchTerm): string {
  if (term.kind === "word") return quoteLexeme(term.text);
  if (term.kind === "prefix") return `${quoteLexeme(term.text)}:*`;
  return `(${term.words.map(quoteLexeme).join(" <-> ")})`;
}

/** Any term occurs: the GIN-friendly prefilter and the ranking query. */
export function anyTermQuery(terms: SearchTerm[]): string {
  return terms.map(termQuery).join(" | ");
}

/**
 * Some term occurs, a phrase counting when all its words do (positions aside): the per-field test
 * of the ranking score (core/search-ranking.ts).
 */
export function coverageQuery(terms: SearchTerm[]): string {
  return terms
    .map((t) => (t.kind === "phrase" ? `(${t.words.map(quoteLexeme).join(" & ")})` : termQuery(t)))
    .join(" | ");
}

/** Every word of every term AND-ed, for the position-free lexeme rows (phrases lose adjacency). */
export function lexemeQuery(terms: SearchTerm[]): string {
  return lexemeTerms(terms).join(" & ");
}

/** Each word of the terms as its own tsquery text (prefix terms keep :*). */
export function lexemeTerms(terms: SearchTerm[]): string[] {
  return terms.flatMap((t) => {
    if (t.kind === "word") return [quoteLexeme(t.text)];
    if (t.kind === "prefix") return [`${quoteLexeme(t.text)}:*`];
    return t.words.map(quoteLexeme);
  });
}

/** Search fields indexed per stream (SQLite's FTS table has 16 columns; both stores agree). */
export const MAX_SEARCH_FIELDS = 16;

/** Search fields a stream indexes (each record's lexeme row holds the words of all of them). */
export function indexedSearchFields(scope: StreamScope): string[] {
  return (scope.stream.query?.search ?? []).slice(0, MAX_SEARCH_FIELDS);
}

/** Search fields a scope may match on: declared searchable (first 16) and granted. */
export function grantedSearchFields(scope: StreamScope): string[] {
  return (scope.stream.query?.search ?? [])
    .slice(0, MAX_SEARCH_FIELDS)
    .filter((f) => isPathGranted(f, scope.fields));
}

/** (connection_id, field) pairs allowed to match: the granted search fields of each visible connection. */
export function allowedPairs(scopes: StreamScope[]): { connections: string[]; fields: string[] } {
  const connections: string[] = [];
  const fields: string[] = [];
  for (const scope of scopes) {
    for (const field of grantedSearchFields(scope)) {
      for (const connection of scope.connectionIds) {
        connections.push(connection);
        fields.push(field);
      }
    }
  }
  return { connections, fields };
}

/** One term over the lexeme row, in any of `fields`: a phrase's words all in one field (positions aside). */
function taggedTerm(term: SearchTerm, fields: string[]): string {
  const inField = (field: string): string => {
    const tag = (word: string, prefix = false) => `${quoteLexeme(`${field}:${word}`)}${prefix ? ":*" : ""}`;
    if (term.kind === "word") return tag(term.text);
    if (term.kind === "prefix") return tag(term.text, true);
    return `(${term.words.map((w) => tag(w)).join(" & ")})`;
  };
  return `(${fields.map(inField).join(" | ")})`;
}

/** Every term occurs in some of `fields` (tsquery over the field-tagged lexeme row). */
export function taggedAllQuery(terms: SearchTerm[], fields: string[]): string {
  return terms.map((t) => taggedTerm(t, fields)).join(" & ");
}

/** Each term on its own, in some of `fields` (for records whose lexeme row has several parts). */
export function taggedTermQueries(terms: SearchTerm[], fields: string[]): string[] {
  return terms.map((t) => taggedTerm(t, [...fields]));
}

/** Some term occurs in this one field: the field's share of the ranking score. */
export function taggedCoverageQuery(terms: SearchTerm[], field: string): string {
  return terms.map((t) => taggedTerm(t, [field])).join(" | ");
}
