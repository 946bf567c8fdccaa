// Cutting record payloads to previews for either channel, remembering what was cut so every
// truncated preview gets a continuation (ladder entries, or `cut` notes in text).
import { sha256Digest } from "../ids.js";
import type { FieldPreviewInfo, WireRecord } from "../wire.js";
import { codePoints, sliceCodePoints } from "./budget.js";
import { type LadderEntry, truncatedEntry } from "./ladder.js";

export interface CutField {
  path: string;
  shown: number; // code points kept
  sizeChars: number;
  digest: string;
}

/**
 * Cut every string in `data` (nested objects walked by dotted path) longer than `maxChars`.
 * `previews` are the RS's notes on fields it already cut (their true size and digest).
 */
export function cutPayload(
  data: Record<string, unknown>,
  maxChars: number,
  previews: Record<string, FieldPreviewInfo> = {},
): { data: Record<string, unknown>; cut: CutField[] } {
  const cut: CutField[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (typeof value === "string") {
        const known = previews[path];
        const size = known ? known.size_chars : codePoints(value);
        const incomplete = known ? !known.complete : false;
        if (size > maxChars || incomplete) {
          const kept = sliceCodePoints(value, maxChars);
          const shown = codePoints(kept);
          if (shown < size) {
            cut.push({ path, shown, sizeChars: size, digest: known ? known.digest : sha256Digest(value) });
          }
          out[key] = kept;
        } else {
          out[key] = value;
        }
      } else if (Array.isArray(value)) {
        // Array elements have no field path a window could address; cut long strings in place.
        out[key] = value.map((v) =>
          typeof v === "string" && v.length > maxChars ? `${sliceCodePoints(v, maxChars)}…` : v,
        );
      } else if (value && typeof value === "object") {
        out[key] = walk(value as Record<string, unknown>, path);
      } else {
        out[key] = value;
      }
    }
    return out;
  };
  return { data: walk(data, ""), cut };
}

/** The identity members of a wire record kept when `fields` narrows it. */
const IDENTITY_KEYS = ["object", "id", "stream", "record_id", "connection_id", "deleted"] as const;

/**
 * A record for the structured channel: payload cut to `maxChars`, ladder entries for each cut,
 * and (with `narrowed`) only identity members beside the projected data.
 */
export function previewRecord(
  record: WireRecord,
  options: { maxChars: number; narrowed: boolean },
): { record: Record<string, unknown>; ladder: LadderEntry[] } {
  const { data, cut } = cutPayload(record.data, options.maxChars, record.field_previews);
  const base: Record<string, unknown> = {};
  if (options.narrowed) {
    for (const key of IDENTITY_KEYS) if (record[key] !== undefined) base[key] = record[key];
  } else {
    for (const [key, value] of Object.entries(record)) {
      if (key !== "data" && key !== "field_previews") base[key] = value;
    }
  }
  base.data = data;
  const ladder = cut.map((c) =>
    truncatedEntry(record, { path: c.path, sizeChars: c.sizeChars, shown: c.shown, digest: c.digest }),
  );
  return { record: base, ladder };
}
