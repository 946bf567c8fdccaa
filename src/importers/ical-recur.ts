// A recurring VEVENT's occurrences inside a bounded window, each its own `events` record linked to the
// series (ical.js steps the RRULE; RDATE adds, EXDATE removes), and the `series` record describing the
// rule. Occurrences are stepped in the event's wall-clock time, so a 09:00 meeting stays 09:00 across a
// DST change, then each is read in the event's zone like any other time.
import ICAL from "ical.js";
import { type Component, endOf, startOf, tzidOf } from "./ical-event.js";
import { type CalendarContext, type IcalTime, instant, wallAt, wallOf } from "./ical-time.js";

/** The span occurrences are stored for, in epoch milliseconds (from inclusive, until exclusive). */
export interface ExpandWindow {
  from: number;
  until: number;
}

/** A series stores at most this many occurrences in the window (an hourly rule over years stops here). */
export const MAX_OCCURRENCES = 10_000;
/** Rule steps before giving up on reaching the window (a minutely rule from 2005). */
const MAX_STEPS = 2_000_000;

export interface Expansion {
  occurrences: Record<string, unknown>[];
  series: Record<string, unknown>;
  /** True when the window held more than MAX_OCCURRENCES, or the rule could not be stepped to its end. */
  truncated: boolean;
}

/**
 * The occurrences of `master` (its record is `base`) between window.from and window.until, less those an
 * override VEVENT replaces (`overridden` holds their event ids), and the series record.
 */
export function expandSeries(
  master: Component,
  base: Record<string, unknown>,
  options: { calendar: CalendarContext; window: ExpandWindow; overridden: ReadonlySet<string> },
): Expansion {
  const { calendar, window } = options;
  const uid = base.uid as string;
  const start = startOf(master);
  const end = endOf(master);
  const duration = end ? end.time.subtractDate(start.time) : null;
  const floating = (t: IcalTime) => ICAL.Time.fromData({ ...wallOf(t), isDate: t.isDate });
  const excluded = new Set((base.exdates as string[] | null) ?? []);
  const found = new Map<string, IcalTime>();
  let truncated = false;
  const consider = (wall: IcalTime): boolean => {
    const at = instant(wall, start.tzid, calendar, { count: false });
    const ms = Date.parse(at.iso);
    if (ms >= window.until) return false;
    if (ms >= window.from && !excluded.has(at.iso)) {
      if (found.size >= MAX_OCCURRENCES) {
        truncated = true;
        return false;
      }
      found.set(at.iso, wall.clone()); // the iterator reuses its Time object
    }
    return true;
  };

  const recur = master.getFirstPropertyValue("rrule") as InstanceType<typeof ICAL.Recur> | null;
  if (recur) {
    const rule = recur.clone();
    // UNTIL is UTC when DTSTART has a zone: compared with wall-clock steps, it must be wall-clock too.
    if (rule.until && !rule.until.isDate && rule.until.zone === ICAL.Timezone.utcTimezone) {
      const wall = wallAt(rule.until.toUnixTime() * 1000, start.tzid, calendar);
      rule.until = ICAL.Time.fromData({ ...wall, isDate: false });
    }
    const steps = rule.iterator(floating(start.time));
    let count = 0;
    for (let next = steps.next(); next; next = steps.next()) {
      if (++count > MAX_STEPS) {
        truncated = true;
        break;
      }
      if (!consider(next)) break;
    }
  } else {
    consider(floating(start.time)); // with RDATE only, DTSTART is the first occurrence
  }
  for (const prop of master.getAllProperties("rdate")) {
    for (const value of prop.getValues() as (IcalTime | InstanceType<typeof ICAL.Period>)[]) {
      const time = "start" in value && value.start ? value.start : (value as IcalTime);
      const zoned = instant(time, tzidOf(prop) ?? start.tzid, calendar, { count: false });
      // An RDATE in another zone than DTSTART: step to its wall time in DTSTART's zone.
      const wall = wallAt(Date.parse(zoned.iso), start.tzid, calendar);
      consider(time.isDate ? floating(time) : ICAL.Time.fromData({ ...wall, isDate: false }));
    }
  }

  const occurrences: Record<string, unknown>[] = [];
  for (const [iso, wall] of [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const eventId = `${uid}#${iso}`;
    if (options.overridden.has(eventId)) continue;
    const at = instant(wall, start.tzid, calendar, { count: false });
    let finish: string | null = null;
    if (duration) {
      const stop = wall.clone();
      stop.addDuration(duration);
      finish = instant(stop, start.tzid, calendar, { count: false }).iso;
    }
    occurrences.push({
      ...base,
      event_id: eventId,
      recurrence_id: iso,
      series_id: uid,
      overridden: false,
      start: at.iso,
      end: finish,
      start_local: at.local,
      exdates: null,
    });
  }
  const series = {
    series_id: uid,
    calendar: base.calendar,
    summary: base.summary,
    description: base.description,
    location: base.location,
    status: base.status,
    rrule: base.rrule,
    exdates: base.exdates,
    first_start: base.start,
    first_end: base.end,
    all_day: base.all_day,
    start_local: base.start_local,
    time_zone: base.time_zone,
    organizer: base.organizer,
    organizer_name: base.organizer_name,
    attendee_count: base.attendee_count,
    categories: base.categories,
    url: base.url,
    sequence: base.sequence,
    created: base.created,
    last_modified: base.last_modified,
    expanded_from: new Date(window.from).toISOString(),
    expanded_until: new Date(window.until).toISOString(),
    occurrence_count: found.size,
    truncated,
  };
  return { occurrences, series, truncated };
}
