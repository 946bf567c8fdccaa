// Code-point chunking of long text and a chunk-by-chunk search for the first case-insensitive match:
// the shared basis of field windows on both stores (a window touches at most two chunks).

/** Code points per stored chunk. */
export const CHUNK_CHARS = 65536;

/** Number of Unicode code points in a string (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}

/** UTF-16 index of the code point at `cpOffset` (clamped to the string's end). */
export function codeUnitIndex(text: string, cpOffset: number): number {
  let index = 0;
  let cps = 0;
  while (cps < cpOffset && index < text.length) {
    const code = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    index += code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
    cps++;
  }
  return index;
}

/** Code points [start, end) of a string; fast path for text without surrogates. */
export function sliceCodePoints(text: string, start: number, end?: number): string {
  const from = codeUnitIndex(text, start);
  if (end === undefined) return text.slice(from);
  const span = text.slice(from);
  return span.slice(0, codeUnitIndex(span, end - start));
}

/** Split text into chunks of `size` code points (the last may be shorter; "" yields no chunks). */
export function splitChunks(text: string, size: number = CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let index = 0;
  while (index < text.length) {
    const window = text.slice(index, index + 2 * size);
    // Without surrogates, `size` code units are `size` code points.
    const units = /[\uD800-\uDFFF]/.test(window.slice(0, size)) ? codeUnitIndex(window, size) : size;
    const end = Math.min(text.length, index + units);
    chunks.push(text.slice(index, end));
    index = end;
  }
  return chunks;
}

// Only syntax characters: a `u` regex rejects identity escapes such as `\-` or `\/`.
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Case-insensitive (Unicode simple case folding) regex for a literal query. */
export function literalMatcher(q: string): RegExp {
  return new RegExp(escapeRegExp(q), "iu");
}

/**
 * Feeds chunks in order and reports the first case-insensitive occurrence of `q` in code-point
 * offsets. The tail of each chunk is carried into the next, so a match spanning a boundary is
 * found. Works for sync (SQLite) and async (Postgres) chunk sources alike.
 */
export class FirstMatchScanner {
  private readonly re: RegExp;
  private readonly qChars: number;
  private carry = "";
  private carryStart = 0; // code-point offset of `carry`
  private consumed = 0; // code points fed so far

  constructor(q: string) {
    this.re = literalMatcher(q);
    this.qChars = codePointLength(q);
  }

  /** Returns the match once found; null means "not yet". */
  push(chunk: string): { startChars: number; endChars: number } | null {
    const text = this.carry + chunk;
    const m = this.re.exec(text);
    const chunkChars = codePointLength(chunk);
    if (m) {
      const startChars = this.carryStart + codePointLength(text.slice(0, m.index));
      return { startChars, endChars: startChars + codePointLength(m[0]) };
    }
    this.consumed += chunkChars;
    const keep = Math.max(0, this.qChars - 1);
    const textChars = codePointLength(text);
    const tailFrom = Math.max(0, textChars - keep);
    this.carry = keep === 0 ? "" : sliceCodePoints(text, tailFrom);
    this.carryStart = this.consumed - codePointLength(this.carry);
    return null;
  }
}

/** The first case-insensitive occurrence of `q` across chunks in order, in code-point offsets. */
export function findFirstMatch(
  chunks: Iterable<string>,
  q: string,
): { startChars: number; endChars: number } | null {
  if (q.length === 0) return { startChars: 0, endChars: 0 };
  const scanner = new FirstMatchScanner(q);
  for (const chunk of chunks) {
    const found = scanner.push(chunk);
    if (found) return found;
  }
  return null;
}

/** What a field window asks for, in code points (store.ts WindowSelector). */
export type WindowAsk =
  | { kind: "range"; offsetChars: number; limitChars: number }
  | { kind: "match"; q: string; beforeChars: number; afterChars: number; limitChars: number };

/**
 * [start, end) of a field window, never longer than its `limitChars` (002: a window never exceeds
 * the limit it reports). A match window keeps the match (its first limitChars when longer) and
 * shares the rest between before and after in proportion to what was asked, giving one side what
 * the other cannot use at the field's edges; no match reads from offset 0.
 */
export function windowSpan(
  selector: WindowAsk,
  sizeChars: number,
  match: { startChars: number; endChars: number } | null,
): { start: number; end: number } {
  const limit = Math.max(0, selector.limitChars);
  if (selector.kind === "range") {
    const start = Math.min(Math.max(0, selector.offsetChars), sizeChars);
    return { start, end: Math.min(sizeChars, start + limit) };
  }
  if (!match) return { start: 0, end: Math.min(sizeChars, limit) };
  const length = match.endChars - match.startChars;
  if (length >= limit) return { start: match.startChars, end: match.startChars + limit };
  const room = limit - length;
  const before = Math.min(selector.beforeChars, match.startChars);
  const after = Math.min(selector.afterChars, sizeChars - match.endChars);
  const asked = selector.beforeChars + selector.afterChars;
  let b = Math.min(before, asked > 0 ? Math.floor((room * selector.beforeChars) / asked) : 0);
  const a = Math.min(after, room - b);
  b = Math.min(before, room - a);
  return { start: match.startChars - b, end: match.endChars + a };
}
