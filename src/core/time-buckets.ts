// Time buckets in an IANA time zone for group_by_time: deterministic string keys, cached offsets so
// bucketing a million rows stays fast.

import type { TimeGranularity } from "../store/store.js";
import { PdppError } from "./errors.js";

const HOUR_MS = 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, Map<number, number | null>>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    try {
      fmt = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
        era: "short",
      });
    } catch {
      throw new PdppError(
        "invalid_request",
        `time_zone ${JSON.stringify(timeZone)} is not an IANA time zone; use e.g. Europe/Paris or UTC.`,
        {
          param: "time_zone",
        },
      );
    }
    formatters.set(timeZone, fmt);
  }
  return fmt;
}

/** The canonical name of an IANA zone (throws invalid_request param time_zone when unknown). */
export function resolveTimeZone(timeZone: string): string {
  return formatterFor(timeZone).resolvedOptions().timeZone;
}

/** Offset of the zone from UTC at an instant, in ms (local = utc + offset). */
function computeOffset(timeZone: string, ms: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  let year = get("year");
  if (parts.find((p) => p.type === "era")?.value === "BC") year = 1 - year;
  const local = Date.UTC(year, get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return local - (ms - (((ms % 1000) + 1000) % 1000));
}

/** Offset with a per-UTC-hour cache; hours in which the offset changes are computed per instant. */
export function zoneOffsetMs(timeZone: string, ms: number): number {
  if (timeZone === "UTC") return 0;
  let cache = offsetCache.get(timeZone);
  if (!cache) {
    cache = new Map();
    offsetCache.set(timeZone, cache);
  }
  const hour = Math.floor(ms / HOUR_MS);
  let cached = cache.get(hour);
  if (cached === undefined) {
    const a = computeOffset(timeZone, hour * HOUR_MS);
    const b = computeOffset(timeZone, hour * HOUR_MS + HOUR_MS - 1000);
    cached = a === b ? a : null;
    cache.set(hour, cached);
  }
  return cached ?? computeOffset(timeZone, ms);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** ISO week-year and week number of a (local, in UTC fields) date. */
function isoWeek(date: Date): { year: number; week: number } {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const dayNum = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - dayNum);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  return { year: d.getUTCFullYear(), week: Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7) };
}

/**
 * The bucket key of an instant: minute "2024-03-05T14:07", hour "2024-03-05T14", day "2024-03-05",
 * week "2024-W10" (ISO), month "2024-03", quarter "2024-Q1", year "2024" — all in local time.
 */
export function bucketKey(isoUtc: string, granularity: TimeGranularity, timeZone: string): string {
  const ms = Date.parse(isoUtc);
  if (!Number.isFinite(ms))
    throw new PdppError("invalid_request", `${JSON.stringify(isoUtc)} is not a time.`);
  const local = new Date(ms + zoneOffsetMs(timeZone, ms));
  const y = pad(local.getUTCFullYear(), 4);
  const mo = pad(local.getUTCMonth() + 1);
  const d = pad(local.getUTCDate());
  switch (granularity) {
    case "minute":
      return `${y}-${mo}-${d}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
    case "hour":
      return `${y}-${mo}-${d}T${pad(local.getUTCHours())}`;
    case "day":
      return `${y}-${mo}-${d}`;
    case "week": {
      const w = isoWeek(local);
      return `${pad(w.year, 4)}-W${pad(w.week)}`;
    }
    case "month":
      return `${y}-${mo}`;
    case "quarter":
      return `${y}-Q${Math.floor(local.getUTCMonth() / 3) + 1}`;
    case "year":
      return y;
    default:
      throw new PdppError("invalid_request", `unknown granularity ${JSON.stringify(granularity)}.`, {
        param: "granularity",
      });
  }
}
