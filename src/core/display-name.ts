// Names that other parties choose (an OAuth client's self-declared name) made safe to show: no
// control characters, no Unicode format controls (bidi overrides and isolates, zero-width
// characters, which could reorder or hide the page's own words around the name), no line or
// paragraph separators, no lone surrogates; spaces collapsed; at most 100 characters.

const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `name` cleaned for display, or `fallback` (cleaned too) when nothing is left of it. */
export function cleanDisplayName(name: string | null | undefined, fallback: string): string {
  const clean = (s: string) =>
    Array.from(s.replace(UNSHOWABLE, "").replace(/\s+/g, " ").trim()).slice(0, 100).join("").trim();
  return clean(name ?? "") || clean(fallback) || "unnamed client";
}
