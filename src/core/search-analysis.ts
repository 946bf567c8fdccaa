// pdpp's own text analysis for search, the one both stores index and query with: words are runs of
// letters, marks and digits; each is case-folded, stripped of Latin combining diacritics, and, when
// it is plain ASCII letters, reduced to its English (Porter2) stem. Indexes hold these terms, never
// a database parser's, so SQLite and Postgres match identically by construction; words of other
// scripts match exactly after folding. Stopwords stay in the index (phrases, field lengths) and
// are dropped from queries (core/search-query.ts).
//
// Stemmer: `porter2` (Porter2 = Snowball English, exact on the Snowball vocabulary incl. its
// exceptions: skies→sky, dying→die, news→news). Measured here against wink-porter2-stemmer (same
// output, 10× slower), stemmer (Porter 1: skies→ski, news→new) and @orama/stemmers (not Porter2:
// news→new, 40× slower); stemming runs on every indexed token, so speed counts.
import { stem } from "porter2";

// Letters, marks and digits form words; everything else separates them.
const WORD_RE = /[\p{L}\p{M}\p{N}]+/gu;
const ASCII_LETTERS_RE = /^[a-z]+$/;
// Combining diacritical marks of Latin/Greek/Cyrillic (U+0300–U+036F): café = cafe. Marks of other
// scripts (Devanagari vowel signs, …) are letters of their words and stay.
const DIACRITICS_RE = /[\u0300-\u036f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range spans all of ASCII on purpose
const NON_ASCII_RE = /[^\x00-\x7f]/;

/** English stopwords (NLTK's list, with the fragments contractions split into: don't → don, t). */
const STOPWORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her " +
    "hers herself it its itself they them their theirs themselves what which who whom this that these " +
    "those am is are was were be been being have has had having do does did doing a an the and but if " +
    "or because as until while of at by for with about against between into through during before " +
    "after above below to from up down in out on off over under again further then once here there " +
    "when where why how all any both each few more most other some such no nor not only own same so " +
    "than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn " +
    "hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/** A word as the index holds it before stemming: lowercased, Latin diacritics removed. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  if (!NON_ASCII_RE.test(lower)) return lower;
  const stripped = lower.normalize("NFD").replace(DIACRITICS_RE, "").normalize("NFC");
  return stripped.length > 0 ? stripped : lower;
}

/** True for an English stopword (of a folded word). */
export function isStopword(folded: string): boolean {
  return STOPWORDS.has(folded);
}

/** The index term of a folded word: its Porter2 stem when it is ASCII letters, else the word. */
export function termOf(folded: string): string {
  return ASCII_LETTERS_RE.test(folded) ? stem(folded) : folded;
}

// Terms of raw words seen recently: most text repeats a small vocabulary, and one lookup replaces
// folding and stemming. A pure function's cache: cleared when full, it bounds memory and never
// changes an answer.
const termCache = new Map<string, string>();
const TERM_CACHE_MAX = 50_000;

/** Index term of a raw word as written. */
export function analyzeWord(word: string): string {
  let t = termCache.get(word);
  if (t === undefined) {
    t = termOf(foldWord(word));
    if (termCache.size >= TERM_CACHE_MAX) termCache.clear();
    termCache.set(word, t);
  }
  return t;
}

export interface AnalyzedToken {
  /** UTF-16 offsets of the word in the source text. */
  start: number;
  end: number;
  term: string;
}

/**
 * Words longer than this many UTF-8 bytes (base64 runs, not words) are no terms: neither indexed
 * nor counted, on both stores (Postgres refuses lexemes of 2 KiB, field tag included).
 */
export const MAX_TERM_BYTES = 1024;

function tooLong(word: string): boolean {
  return word.length > MAX_TERM_BYTES / 3 && new TextEncoder().encode(word).length > MAX_TERM_BYTES;
}

/** Every word of a text with its index term, in order (stopwords included). */
export function analyzeTokens(text: string): AnalyzedToken[] {
  const out: AnalyzedToken[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    if (tooLong(m[0])) continue;
    out.push({ start: m.index, end: m.index + m[0].length, term: analyzeWord(m[0]) });
  }
  return out;
}

/** True for the char code of an ASCII letter or digit (the word characters of ASCII text). */
function isAsciiWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/**
 * The index terms of a text, in order (what a store indexes for one field). ASCII text is split by
 * a char-code scan (the same words WORD_RE finds there: letters and digits), 3–4× cheaper than the
 * Unicode regex; ranking tokenizes every candidate's fields with it.
 */
export function analyzeTerms(text: string): string[] {
  if (!NON_ASCII_RE.test(text)) {
    const out: string[] = [];
    const n = text.length;
    let start = -1;
    for (let i = 0; i <= n; i++) {
      if (i < n && isAsciiWordCode(text.charCodeAt(i))) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        // An ASCII word's UTF-8 bytes are its characters.
        if (i - start <= MAX_TERM_BYTES) out.push(analyzeWord(text.slice(start, i)));
        start = -1;
      }
    }
    return out;
  }
  const words = text.match(WORD_RE);
  if (words === null) return [];
  const out: string[] = new Array(words.length);
  let n = 0;
  for (const word of words) if (!tooLong(word)) out[n++] = analyzeWord(word);
  out.length = n;
  return out;
}

/**
 * Scoring's tally of an ASCII text: the number of its terms (what analyzeTerms would return), and
 * per wanted term the occurrences, added to `counts` at the indices `wanted` lists. A word is
 * stemmed only when its first letter (lowercased) begins some wanted term: folding and Porter2
 * keep a word's first character (suffix rules and the exceptions dying→die, skies→sky alike), so
 * no other word can match. Returns -1, counting nothing, for text that is not ASCII.
 */
export function tallyAsciiTerms(text: string, wanted: Map<string, number[]>, counts: number[]): number {
  if (NON_ASCII_RE.test(text)) return -1;
  const first = firstCodes(wanted);
  let terms = 0;
  const n = text.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n && isAsciiWordCode(text.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start <= MAX_TERM_BYTES) {
        terms++;
        const c = text.charCodeAt(start);
        if (first[c >= 65 && c <= 90 ? c + 32 : c] === 1) {
          const list = wanted.get(analyzeWord(text.slice(start, i)));
          if (list) for (const k of list) counts[k]++;
        }
      }
      start = -1;
    }
  }
  return terms;
}

const firstCodeCache = new WeakMap<Map<string, number[]>, Uint8Array>();

/** Per ASCII code, 1 when some wanted term starts with it. */
function firstCodes(wanted: Map<string, number[]>): Uint8Array {
  let first = firstCodeCache.get(wanted);
  if (!first) {
    first = new Uint8Array(128);
    for (const term of wanted.keys()) {
      const c = term.charCodeAt(0);
      if (c < 128) first[c] = 1;
    }
    firstCodeCache.set(wanted, first);
  }
  return first;
}

/** Folded words of a text, in order (query parsing). */
export function foldedWords(text: string): string[] {
  return (text.match(WORD_RE) ?? []).map(foldWord);
}

/**
 * The searchable text of any payload value: strings, numbers, booleans, and arrays/objects of
 * them, flattened in order. Both stores index, score and snippet exactly this.
 */
export function searchableText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(searchableText).join(" ");
  if (typeof value === "object") return Object.values(value).map(searchableText).join(" ");
  return "";
}
