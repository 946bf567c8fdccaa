// Local wall-clock times (no zone in the file: WhatsApp exports, floating iCalendar times) turned into UTC
// instants for an IANA time zone, with Intl's zone data; offsets are cached per zone and wall hour.
import { PdppError } from "../core/errors.js";

export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The machine's zone (what `--time-zone` defaults to). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The zone's canonical name, or a PdppError naming the flag when Intl does not know it. */
export function checkTimeZone(zone: string, flag = "--time-zone"): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new PdppError(
      "invalid_request",
      `${flag} ${zone} is not a time zone: use an IANA name such as Europe/London or UTC.`,
    );
  }
}

export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** True when the fields name a real calendar date and clock time. */
export function isValidWallTime(t: WallTime): boolean {
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.hour > 23 || t.minute > 59 || t.second > 59) return false;
  const days = new Date(Date.UTC(t.year, t.month, 0)).getUTCDate();
  return t.day <= days;
}

/** Converts wall times in one zone; create one per import (its cache grows with distinct wall hours). */
export class WallClock {
  private readonly format: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();

  constructor(readonly zone: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  }

  /**
   * Milliseconds since the epoch of a wall time. A wall time a DST change skips or repeats resolves to one
   * of its readings, always the same one for the same input (so ids and re-imports stay stable).
   */
  toEpochMs(t: WallTime): number {
    const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
    const first = this.offsetAt(asUtc - this.offsetAt(asUtc));
    const second = this.offsetAt(asUtc - first);
    return asUtc - Math.max(first, second);
  }

  toIso(t: WallTime): string {
    return new Date(this.toEpochMs(t)).toISOString();
  }

  /** The zone's wall time at an instant. */
  wallAt(epochMs: number): WallTime {
    const d = new Date(epochMs + this.offsetAt(epochMs));
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }

  /** The zone's offset from UTC (ms) at an instant; cached per hour of the instant. */
  private offsetAt(epochMs: number): number {
    const hourKey = Math.floor(epochMs / 3_600_000);
    const cached = this.offsets.get(hourKey);
    if (cached !== undefined) return cached;
    const parts: Record<string, number> = {};
    for (const p of this.format.formatToParts(new Date(hourKey * 3_600_000))) {
      if (p.type !== "literal") parts[p.type] = Number(p.value);
    }
    const local = Date.UTC(
      parts.year!,
      parts.month! - 1,
      parts.day!,
      parts.hour!,
      parts.minute!,
      parts.second!,
    );
    const offset = local - hourKey * 3_600_000;
    this.offsets.set(hourKey, offset);
    return offset;
  }
}

/** `2023-12-31T22:15:42` for a wall time (what the file said, without a zone). */
export function wallIso(t: WallTime): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(t.year, 4)}-${p(t.month)}-${p(t.day)}T${p(t.hour)}:${p(t.minute)}:${p(t.second)}`;
}
