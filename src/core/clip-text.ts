// Shortening text for titles and previews without ever cutting a character: a cut falls between
// grapheme clusters (an emoji with its modifiers, a flag, a letter with its accents stay whole), so the
// result is always well-formed UTF-16 and reads as the text did.
import { codePointLength } from "./text-chunks.js";

const ELLIPSIS = "…";
/** Code points of the longest real grapheme cluster worth keeping whole (ZWJ families are ~11). */
const MAX_CLUSTER = 32;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * `text` when it has at most `maxChars` code points, else its longest prefix of whole grapheme
 * clusters that leaves room for "…", plus "…" (at most `maxChars` code points in all).
 */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars || codePointLength(text) <= maxChars) return text;
  const room = Math.max(0, maxChars - 1);
  let out = "";
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = codePointLength(segment);
    if (used + size > room) {
      // A first cluster that does not fit is dropped whole, unless it is a run of combining marks
      // longer than any real character (then its first code points are kept, not nothing).
      if (used === 0 && size > MAX_CLUSTER) out = [...segment].slice(0, room).join("");
      break;
    }
    out += segment;
    used += size;
  }
  return `${out}${ELLIPSIS}`;
}

/** Whitespace runs (newlines included) as single spaces, trimmed: a multi-line prompt as one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The longest prefix of `text` of at most `end` UTF-16 units that does not split a surrogate
 * pair: budgets counted in JavaScript characters, cut only at code-point boundaries.
 */
export function headUnits(text: string, end: number): string {
  if (text.length <= end) return text;
  let e = Math.max(0, Math.floor(end));
  if (e > 0 && isHigh(text.charCodeAt(e - 1)) && isLow(text.charCodeAt(e))) e -= 1;
  return text.slice(0, e);
}

/** `text` from unit `start` on, moved past a low surrogate whose pair starts before it. */
export function tailUnits(text: string, start: number): string {
  let s = Math.max(0, Math.floor(start));
  if (s > 0 && s < text.length && isLow(text.charCodeAt(s)) && isHigh(text.charCodeAt(s - 1))) s += 1;
  return text.slice(s);
}

/** `text` when it has at most `max` UTF-16 units, else its code-point-safe head and "…" (≤ max in all). */
export function clipUnits(text: string, max: number): string {
  return text.length <= max ? text : `${headUnits(text, max - 1)}${ELLIPSIS}`;
}
