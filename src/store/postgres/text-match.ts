// First case-insensitive occurrence of q in a chunked text field: Postgres picks the first chunk
// that can hold a match (ILIKE over the chunk plus the next chunk's first |q|-1 code points, so a
// match across a boundary counts), and JS confirms it with the contract's own matcher — so a 100 MB
// field is scanned inside the server instead of being shipped to Node chunk by chunk.
import { CHUNK_CHARS, codePointLength, literalMatcher } from "../../core/text-chunks.js";
import type { Queryable } from "./pool.js";

// Letters whose case class under Unicode simple case folding (what a JS "iu" regex uses) holds a
// non-ASCII member: K ~ U+212A KELVIN SIGN, S ~ U+017F LONG S.
const ASCII_WITH_FOREIGN_FOLD = /[ksKS]/;
const CASE_MAPPED = /\p{Changes_When_Casemapped}/u;

/**
 * An ILIKE pattern matching a superset of what `literalMatcher(q)` matches: a character whose case
 * class is itself or exactly its ASCII pair stays (ILIKE lowers both sides with one per-character
 * function, so the class maps to one character); any other character becomes `_` (one code point,
 * as simple folding never changes a match's length). The JS matcher then confirms.
 */
export function supersetPattern(q: string): string {
  let out = "%";
  for (const ch of q) {
    const code = ch.codePointAt(0) ?? 0;
    const safe = code < 0x80 ? !ASCII_WITH_FOREIGN_FOLD.test(ch) : !CASE_MAPPED.test(ch);
    if (!safe) out += "_";
    else out += ch === "%" || ch === "_" || ch === "\\" ? `\\${ch}` : ch;
  }
  return `${out}%`;
}

export async function findInStoredText(
  db: Queryable,
  ref: { rid: string; path: string; chunkCount: number },
  q: string,
): Promise<{ startChars: number; endChars: number } | null> {
  if (q.length === 0) return { startChars: 0, endChars: 0 };
  // Postgres text never holds U+0000 (ingest rejects it) and cannot take it as a parameter.
  if (q.includes("\u0000")) return null;
  const tail = codePointLength(q) - 1;
  const pattern = supersetPattern(q);
  const matcher = literalMatcher(q);
  let from = 0;
  while (from < ref.chunkCount) {
    const { rows } = await db.query<{ seq: number; body: string; next: string }>(
      `SELECT c.seq, c.body, COALESCE(n.head, '') AS next FROM text_chunks c
       LEFT JOIN LATERAL (SELECT left(x.body, $4) AS head FROM text_chunks x
                          WHERE x.rid = c.rid AND x.path = c.path AND x.seq = c.seq + 1) n ON $4 > 0
       WHERE c.rid = $1 AND c.path = $2 AND c.seq >= $3
         AND (CASE WHEN $4 > 0 THEN c.body || COALESCE(n.head, '') ELSE c.body END) ILIKE $5
       ORDER BY c.seq LIMIT 1`,
      [ref.rid, ref.path, from, tail, pattern],
    );
    if (rows.length === 0) return null;
    const { seq, body, next } = rows[0];
    const m = matcher.exec(body + next);
    // A match starting in `next` would be shorter than q, so any match starts inside this chunk.
    if (m) {
      const startChars = seq * CHUNK_CHARS + codePointLength(body.slice(0, m.index));
      return { startChars, endChars: startChars + codePointLength(m[0]) };
    }
    from = seq + 1; // the pattern's superset let a non-match through; go on after it
  }
  return null;
}
