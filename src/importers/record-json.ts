// The JSON text of one imported record, built once. Text a store cannot hold (an unpaired UTF-16
// surrogate, say from a tool output the agent itself cut mid-emoji, or NUL) is repaired to U+FFFD,
// as lossy UTF-8 decoding would, so one bad character never costs the whole record; the repair is
// reported. JSON.stringify writes exactly those characters as \u escapes (a valid pair it writes
// raw), so the escape-free common case is told apart without walking the record.
import { repairUnstorable } from "../core/validate-record.js";

const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f])/;

export interface RecordJson {
  /** The record as stored: `data` itself, or a repaired copy. */
  data: Record<string, unknown>;
  json: string;
  /** What was repaired, for the import summary; null when nothing was. */
  repaired: string | null;
}

export function recordJson(data: Record<string, unknown>): RecordJson {
  const json = JSON.stringify(data);
  if (!ESCAPED_UNSTORABLE.test(json)) return { data, json, repaired: null };
  const { value, paths } = repairUnstorable(data);
  if (paths.length === 0) return { data, json, repaired: null }; // an escaped backslash, not a character
  const fixed = value as Record<string, unknown>;
  const shown =
    paths.length > 3 ? `${paths.slice(0, 3).join(", ")} and ${paths.length - 3} more` : paths.join(", ");
  return {
    data: fixed,
    json: JSON.stringify(fixed),
    repaired: `unpaired UTF-16 surrogates or NUL characters replaced by U+FFFD in ${shown}`,
  };
}
