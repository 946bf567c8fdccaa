// Parses the user's search `q` into plain terms (words AND-ed, "phrases", prefix*) that no backend
// can misread as its own syntax: FTS5/tsquery operators in `q` are just text here, never errors.

export type SearchTerm =
  | { kind: "word"; text: string }
  | { kind: "prefix"; text: string }
  | { kind: "phrase"; words: string[] };

export const MAX_QUERY_CHARS = 1000;
const MAX_TERMS = 32;

// Letters, marks and digits form words; everything else separates them (FTS5 unicode61 agrees).
const WORD_RE = /[\p{L}\p{M}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return (text.match(WORD_RE) ?? []).map((w) => w.toLowerCase());
}

/**
 * Split `q` into terms. A double-quoted run is a phrase; a bare word ending in `*` is a prefix;
 * every other word is a plain term. An unbalanced quote extends to the end. Returns [] when `q`
 * has no searchable word (the caller answers with no hits, not an error).
 */
export function parseSearchQuery(q: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const parts = q.split('"');
  parts.forEach((part, index) => {
    const quoted = index % 2 === 1;
    if (quoted) {
      const words = wordsOf(part);
      if (words.length === 1) terms.push({ kind: "word", text: words[0] });
      else if (words.length > 1) terms.push({ kind: "phrase", words });
      return;
    }
    for (const raw of part.split(/\s+/u)) {
      if (!raw) continue;
      const isPrefix = /[\p{L}\p{M}\p{N}]\*+$/u.test(raw);
      const words = wordsOf(raw);
      words.forEach((word, i) => {
        const last = i === words.length - 1;
        terms.push(isPrefix && last ? { kind: "prefix", text: word } : { kind: "word", text: word });
      });
    }
  });
  // Deduplicate and bound: repeated terms do not change an AND query.
  const seen = new Set<string>();
  return terms
    .filter((t) => {
      const key = JSON.stringify(t);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_TERMS);
}

/** Every word a term set contains (for highlight and matched-field checks). */
export function termWords(terms: SearchTerm[]): string[] {
  return terms.flatMap((t) => (t.kind === "phrase" ? t.words : [t.text]));
}
