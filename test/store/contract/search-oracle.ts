// A reference for search matching (store.ts "Search"), written from the spec rather than from the
// stores: each granted field's index terms, and a record matches when its fields hold every
// required clause, no excluded one, and some optional one (any when none is required).
import { analyzeTerms } from "../../../src/core/search-analysis.js";
import { type ClauseMatch, type SearchClause, termMatches } from "../../../src/core/search-query.js";

function inField(terms: string[], match: ClauseMatch): boolean {
  if (match.kind !== "phrase") return terms.some((t) => termMatches(match, t));
  const p = match.terms;
  for (let i = 0; i + p.length <= terms.length; i++) if (p.every((w, k) => terms[i + k] === w)) return true;
  return false;
}

/** True when a record whose granted search fields hold these texts matches the clauses. */
export function matchesQuery(fieldTexts: string[], clauses: SearchClause[]): boolean {
  const fields = fieldTexts.map(analyzeTerms);
  const holds = (c: SearchClause) => fields.some((terms) => inField(terms, c.match));
  const must = clauses.filter((c) => c.occur === "must");
  const should = clauses.filter((c) => c.occur === "should");
  if (must.length === 0 && should.length === 0) return false;
  if (clauses.some((c) => c.occur === "not" && holds(c))) return false;
  if (!must.every(holds)) return false;
  return must.length > 0 || should.some(holds);
}
