// Normalises time values (ISO strings, dates, epoch numbers) to ISO-8601 UTC with ms precision,
// the one form both stores compare, sort and bucket as strings.

import { headUnits } from "./clip-text.js";
import { PdppError } from "./errors.js";

// A date-time without a zone designator is read as UTC, never as the server's local time.
const ZONELESS_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;
const EPOCH_STRING_RE = /^-?\d{9,}(?:\.\d+)?$/;
// Years outside 0000–9999 would print as ±YYYYYY and break string ordering.
const MIN_MS = Date.parse("0000-01-01T00:00:00.000Z");
const MAX_MS = Date.parse("9999-12-31T23:59:59.999Z");

function invalidTime(value: unknown): PdppError {
  const shown = typeof value === "string" ? JSON.stringify(headUnits(value, 64)) : String(value);
  return new PdppError(
    "invalid_request",
    `${shown} is not a valid time; use ISO-8601 like 2024-03-05T14:07:00Z.`,
  );
}

// Already-normalised input (the common case at ingest) is validated field by field and returned
// as is: it is exactly what toISOString() would print for it.
const CANONICAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isCanonical(text: string): boolean {
  const m = CANONICAL_RE.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6]) < 60
  );
}

function fromEpochNumber(value: number): number {
  // Values above 1e11 are milliseconds (1e11 s is the year 5138); below, seconds.
  return Math.abs(value) > 1e11 ? value : value * 1000;
}

/** ISO-8601 UTC (`toISOString()`), null for null/undefined; throws invalid_request otherwise. */
export function normalizeTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalidTime(value);
    ms = fromEpochNumber(value);
  } else if (typeof value === "string") {
    if (isCanonical(value)) return value;
    const text = value.trim();
    if (EPOCH_STRING_RE.test(text)) ms = fromEpochNumber(Number(text));
    else {
      const zoneless = ZONELESS_RE.exec(text);
      ms = Date.parse(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : text);
    }
  } else throw invalidTime(value);
  if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) throw invalidTime(value);
  return new Date(ms).toISOString();
}

/** Like normalizeTime but returns null instead of throwing (for lenient reads of stored payloads). */
export function tryNormalizeTime(value: unknown): string | null {
  try {
    return normalizeTime(value);
  } catch {
    return null;
  }
}
