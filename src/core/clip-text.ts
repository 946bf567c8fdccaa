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
