// Builds the Postgres search rows of a record: one tsvector per (search field, token segment), made
// from pdpp's own index terms (core/search-analysis.ts, never Postgres' parser), so both stores
// split, fold and stem words identically.
import { analyzeTerms } from "../../core/search-analysis.js";

/** Tokens per tsvector row; positions restart in each row. Postgres caps positions at 16,383. */
export const SEGMENT_TOKENS = 4096;
/** Tokens repeated at the start of the next segment so a phrase across a boundary still matches. */
export const SEGMENT_OVERLAP = 64;
/** Postgres refuses lexemes of 2,047 bytes or more; such "words" (base64 runs) are not indexed. */
const MAX_LEXEME_BYTES = 2046;

export interface SearchRow {
  field: string;
  seg: number;
  tsv: string; // tsvector literal, cast with ::tsvector
}

/** Quote one lexeme for tsvector/tsquery input syntax: '…' with ' doubled and \ escaped. */
export function quoteLexeme(word: string): string {
  return `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

function segmentLiteral(words: string[]): string {
  const positions = new Map<string, number[]>();
  words.forEach((word, i) => {
    const list = positions.get(word);
    if (list) list.push(i + 1);
    else positions.set(word, [i + 1]);
  });
  const parts: string[] = [];
  for (const [word, list] of positions) parts.push(`${quoteLexeme(word)}:${list.slice(0, 256).join(",")}`);
  return parts.join(" ");
}

/**
 * Search rows for one field's text; a text without words yields no row. When `lexemes` is given,
 * every word is also added to it (the record's lexeme set, see lexemeParts).
 */
export function searchRowsFor(field: string, text: string, lexemes?: Set<string>): SearchRow[] {
  const rows: SearchRow[] = [];
  let window: string[] = [];
  const flush = (): void => {
    rows.push({ field, seg: rows.length, tsv: segmentLiteral(window) });
  };
  for (const word of analyzeTerms(text)) {
    lexemes?.add(word);
    window.push(word);
    if (window.length === SEGMENT_TOKENS) {
      flush();
      window = window.slice(SEGMENT_TOKENS - SEGMENT_OVERLAP);
    }
  }
  // The last window is only new when it holds more than the overlap already indexed.
  if (window.length > 0 && (rows.length === 0 || window.length > SEGMENT_OVERLAP)) flush();
  return rows;
}

/**
 * A lexeme of the record's lexeme row: the word tagged with its field (`body:word`), so one row
 * answers "every term occurs in some granted field" and "which granted fields hold a term" without
 * the per-field rows. Words hold no ':', so the tag ends at the last one. Null when too long.
 */
export function taggedLexeme(field: string, word: string): string | null {
  const tagged = `${field}:${word}`;
  return Buffer.byteLength(tagged, "utf8") <= MAX_LEXEME_BYTES ? tagged : null;
}

/** A tsvector holds at most 1 MiB of lexeme text; parts stay well under it. */
const LEX_PART_BYTES = 512 * 1024;

/**
 * The record's set of distinct field-tagged words (taggedLexeme) over all its search fields, as
 * position-free tsvector literals (one part unless the set is huge). One small row per record
 * answers "every term occurs in some granted field" with a single GIN probe, is cheap to test row
 * by row in id order, and scores a candidate (core/search-ranking.ts) from that one vector.
 */
export function lexemeParts(lexemes: Set<string>): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const word of lexemes) {
    const quoted = quoteLexeme(word);
    const size = Buffer.byteLength(quoted, "utf8") + 1;
    if (bytes + size > LEX_PART_BYTES && current.length > 0) {
      parts.push(current.join(" "));
      current = [];
      bytes = 0;
    }
    current.push(quoted);
    bytes += size;
  }
  if (current.length > 0) parts.push(current.join(" "));
  return parts;
}
