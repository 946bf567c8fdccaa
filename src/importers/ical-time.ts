// iCalendar dates and times as UTC instants: a TZID the calendar defines (VTIMEZONE) is read with that
// definition, else as an IANA name (Intl), else as a Windows zone name (Outlook writes `Eastern Standard
// Time`) mapped to IANA by windows-iana, which carries CLDR's windowsZones table; anything else, and a
// time without a zone, is floating: read in the calendar's zone, and counted for the summary.
import ICAL from "ical.js";
import { findIana } from "windows-iana";
import { isKnownTimeZone, WallClock, type WallTime, wallIso } from "./wall-time.js";

export type IcalTime = InstanceType<typeof ICAL.Time>;
type Timezone = InstanceType<typeof ICAL.Timezone>;

/** How one TZID was read. */
type ZoneReading =
  | { kind: "defined"; zone: Timezone }
  | { kind: "iana"; clock: WallClock }
  | { kind: "windows"; clock: WallClock; iana: string }
  | { kind: "unknown" };

/** Per VCALENDAR: its name, its zone for floating times, its VTIMEZONE definitions and TZID readings. */
export class CalendarContext {
  floating: WallClock;
  readonly zones = new Map<string, Timezone>();
  private readonly readings = new Map<string, ZoneReading>();
  /** TZIDs read as a Windows zone's IANA equivalent, and ones no reading knows (read as floating), per DTSTART. */
  readonly windowsZones = new Map<string, string>();
  readonly unknownZones = new Map<string, number>();
  floatingTimes = 0;

  constructor(
    public name: string,
    floatingZone: string,
  ) {
    this.floating = new WallClock(floatingZone);
  }

  reading(tzid: string): ZoneReading {
    let reading = this.readings.get(tzid);
    if (reading) return reading;
    const defined = this.zones.get(tzid);
    // Intl validates a zone name slowly: each TZID's reading is remembered.
    const iana = ianaName(tzid);
    if (defined) reading = { kind: "defined", zone: defined };
    else if (iana) reading = { kind: "iana", clock: new WallClock(iana) };
    else {
      const windows = findIana(tzid.trim())[0];
      reading =
        windows && isKnownTimeZone(windows)
          ? { kind: "windows", clock: new WallClock(windows), iana: windows }
          : { kind: "unknown" };
    }
    this.readings.set(tzid, reading);
    return reading;
  }
}

/** An IANA name, also behind a path prefix some exporters add (`/mozilla.org/20050126_1/Europe/Berlin`). */
function ianaName(tzid: string): string | null {
  if (isKnownTimeZone(tzid)) return tzid;
  const tail = /(?:^|\/)([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(tzid)?.[1];
  return tail && isKnownTimeZone(tail) ? tail : null;
}

export interface Instant {
  /** The UTC instant. */
  iso: string;
  /** What the file wrote: 2024-01-01 or 2024-01-01T09:00:00. */
  local: string;
  /** The TZID (a Windows name as its IANA equivalent), UTC, or floating:<zone>. */
  zone: string;
}

export function wallOf(time: IcalTime): WallTime {
  return {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
  };
}

/**
 * A date or date-time as a UTC instant, what the file wrote, and the zone it was read in. Zones read as
 * floating or from a Windows name are counted for the summary, unless `count` is false (a series'
 * occurrences repeat what their DTSTART already counted).
 */
export function instant(
  time: IcalTime,
  tzid: string | null,
  calendar: CalendarContext,
  options: { count?: boolean } = {},
): Instant {
  const count = options.count !== false;
  const wall = wallOf(time);
  const local = time.isDate ? wallIso(wall).slice(0, 10) : wallIso(wall);
  const floating = (): Instant => ({
    iso: calendar.floating.toIso(wall),
    local,
    zone: `floating:${calendar.floating.zone}`,
  });
  // All-day dates float by design (a birthday is the same date everywhere): not counted as a lost zone.
  if (time.isDate) return floating();
  if (time.zone?.tzid === "UTC" || tzid?.toUpperCase() === "UTC") {
    const ms = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
    return { iso: new Date(ms).toISOString(), local, zone: "UTC" };
  }
  if (tzid) {
    const reading = calendar.reading(tzid);
    switch (reading.kind) {
      case "defined": {
        const zoned = ICAL.Time.fromData({ ...wall, isDate: false }, reading.zone);
        return { iso: new Date(zoned.toUnixTime() * 1000).toISOString(), local, zone: tzid };
      }
      case "iana":
        return { iso: reading.clock.toIso(wall), local, zone: reading.clock.zone };
      case "windows":
        if (count) calendar.windowsZones.set(tzid, reading.iana);
        return { iso: reading.clock.toIso(wall), local, zone: reading.iana };
      case "unknown":
        if (count) calendar.unknownZones.set(tzid, (calendar.unknownZones.get(tzid) ?? 0) + 1);
        return floating();
    }
  }
  if (count) calendar.floatingTimes++;
  return floating();
}

/** The wall time in the TZID's zone at a UTC instant (to compare an RRULE's UTC UNTIL with wall times). */
export function wallAt(epochMs: number, tzid: string | null, calendar: CalendarContext): WallTime {
  const reading = tzid ? calendar.reading(tzid) : null;
  if (reading?.kind === "defined") {
    return wallOf(ICAL.Time.fromJSDate(new Date(epochMs), true).convertToZone(reading.zone));
  }
  const clock = reading?.kind === "iana" || reading?.kind === "windows" ? reading.clock : calendar.floating;
  return clock.wallAt(epochMs);
}

/** What the summary says about zones: Windows names mapped, and what stayed floating. */
export function zoneNotes(calendar: CalendarContext): string[] {
  const notes: string[] = [];
  for (const [tzid, iana] of calendar.windowsZones)
    notes.push(`TZID "${tzid}" (a Windows zone name) read as ${iana}`);
  const unknown = [...calendar.unknownZones].map(([tzid, n]) => `"${tzid}" (${n})`);
  if (unknown.length > 0) {
    notes.push(
      `events whose TZID no zone database knows read as floating ${calendar.floating.zone} time: ${unknown.join(", ")}; pass --time-zone to read them in another zone`,
    );
  }
  if (calendar.floatingTimes > 0) {
    notes.push(
      `${calendar.floatingTimes} ${calendar.floatingTimes === 1 ? "event" : "events"} without a zone (floating) read in ${calendar.floating.zone}; pass --time-zone to read them in another zone`,
    );
  }
  return notes;
}
