// The iCalendar importer: an .ics file → `events`, parsed with ical.js one VEVENT at a time (the file is
// split on its BEGIN/END lines as it streams, so memory holds one event plus the calendar's time zones).
import { basename } from "node:path";
import ICAL from "ical.js";
import { openCountedInput } from "./file-input.js";
import { ICAL_MANIFEST } from "./ical-manifest.js";
import type { ImportFormat } from "./import-format.js";
import { textLines } from "./text-lines.js";
import type { ImportItem, ImportSource } from "./types.js";
import { checkTimeZone, isKnownTimeZone, machineTimeZone, WallClock, wallIso } from "./wall-time.js";

export interface IcalOptions {
  /** Zone for floating times and all-day dates (default: the calendar's X-WR-TIMEZONE, else the machine's). */
  timeZone?: string;
}

type Time = InstanceType<typeof ICAL.Time>;
type Component = InstanceType<typeof ICAL.Component>;

export async function openIcalSource(path: string, options: IcalOptions = {}): Promise<ImportSource> {
  const forced = options.timeZone === undefined ? undefined : checkTimeZone(options.timeZone);
  const input = openCountedInput(path);
  return {
    manifest: ICAL_MANIFEST,
    items: icalItems(input.chunks, { fileName: basename(path), timeZone: forced }),
    bytesRead: input.bytesRead,
    totalBytes: input.totalBytes,
  };
}

/** Per VCALENDAR: its name, its zone for floating times, its VTIMEZONE definitions. */
interface CalendarContext {
  name: string;
  floating: WallClock;
  zones: Map<string, InstanceType<typeof ICAL.Timezone>>;
  clocks: Map<string, WallClock | null>;
}

export async function* icalItems(
  chunks: AsyncIterable<Buffer>,
  options: { fileName: string; timeZone?: string },
): AsyncGenerator<ImportItem> {
  const newCalendar = (): CalendarContext => ({
    name: options.fileName.replace(/\.ics$/i, ""),
    floating: new WallClock(options.timeZone ?? machineTimeZone()),
    zones: new Map(),
    clocks: new Map(),
  });
  let calendar = newCalendar();
  const stack: string[] = [];
  let block: string[] | null = null; // lines of the VEVENT or VTIMEZONE being collected
  let blockLine = 0;
  let eventIndex = 0;
  let sawCalendar = false;
  let lastProp: string | null = null; // an unfolded calendar-level property, for X-WR-*

  const calendarProp = (prop: string) => {
    const m = /^(X-WR-CALNAME|X-WR-TIMEZONE)(?:;[^:]*)?:(.*)$/i.exec(prop);
    if (!m) return;
    const value = m[2]!.trim();
    if (m[1]!.toUpperCase() === "X-WR-CALNAME" && value) calendar.name = value;
    else if (!options.timeZone && isKnownTimeZone(value)) calendar.floating = new WallClock(value);
  };

  for await (const { text: raw, line } of textLines(chunks)) {
    const text = raw.replace(/\r$/, "");
    const folded = text.startsWith(" ") || text.startsWith("\t");
    const marker = folded ? null : /^(BEGIN|END):(\S+)\s*$/i.exec(text);
    if (stack.length === 1 && block === null) {
      if (folded && lastProp !== null) lastProp += text.slice(1);
      else {
        if (lastProp !== null) calendarProp(lastProp);
        lastProp = marker ? null : text;
      }
    }
    if (block) block.push(text);
    if (!marker) {
      if (stack.length === 0 && text.trim() !== "" && !sawCalendar) {
        sawCalendar = true; // report once: a file that is not iCalendar would reject every line
        yield { error: "text outside BEGIN:VCALENDAR … END:VCALENDAR", position: `line ${line}` };
      }
      continue;
    }
    const name = marker[2]!.toUpperCase();
    if (marker[1]!.toUpperCase() === "BEGIN") {
      if (name === "VCALENDAR" && stack.length === 0) {
        calendar = newCalendar();
        sawCalendar = true;
      }
      stack.push(name);
      if (stack.length === 2 && (name === "VEVENT" || name === "VTIMEZONE")) {
        block = [text];
        blockLine = line;
      }
      continue;
    }
    // END: pop to the matching BEGIN (tolerating a missing END of an inner component).
    const at = stack.lastIndexOf(name);
    if (at < 0) {
      yield { error: `END:${name} without BEGIN:${name}`, position: `line ${line}` };
      continue;
    }
    stack.length = at;
    if (stack.length === 1 && block) {
      const lines = block;
      block = null;
      if (name === "VTIMEZONE") {
        addTimezone(lines, calendar);
        continue;
      }
      eventIndex++;
      const position = `event ${eventIndex} (line ${blockLine})`;
      try {
        yield { stream: "events", position, data: eventRecord(lines, calendar) };
      } catch (error) {
        yield { error: (error as Error).message, position };
      }
    }
  }
  if (stack.length > 0) {
    yield { error: `the file ends inside ${stack.at(-1)} (truncated?)`, position: `line ${blockLine}` };
  }
}

function addTimezone(lines: string[], calendar: CalendarContext): void {
  try {
    const component = new ICAL.Component(ICAL.parse(lines.join("\r\n")) as unknown[]);
    const tzid = String(component.getFirstPropertyValue("tzid") ?? "");
    if (tzid) calendar.zones.set(tzid, new ICAL.Timezone({ component, tzid }));
  } catch {
    // A broken VTIMEZONE only matters to events that use it: they fall back to Intl or floating time.
  }
}

function eventRecord(lines: string[], calendar: CalendarContext): Record<string, unknown> {
  let component: Component;
  try {
    component = new ICAL.Component(ICAL.parse(lines.join("\r\n")) as unknown[]);
  } catch (error) {
    throw new Error(`unparseable VEVENT: ${(error as Error).message}`);
  }
  const uid = text(component, "uid");
  if (!uid) throw new Error("VEVENT has no UID");
  const startProp = component.getFirstProperty("dtstart");
  const startTime = startProp?.getFirstValue() as Time | null | undefined;
  if (!startProp || !startTime || typeof startTime !== "object" || !("isDate" in startTime)) {
    throw new Error(`VEVENT ${uid} has no DTSTART`);
  }
  const start = instant(startTime, tzidOf(startProp), calendar);
  let end: string | null = null;
  const endProp = component.getFirstProperty("dtend");
  const endTime = endProp?.getFirstValue() as Time | null | undefined;
  if (endProp && endTime) end = instant(endTime, tzidOf(endProp), calendar).iso;
  else {
    const duration = component.getFirstPropertyValue("duration") as InstanceType<typeof ICAL.Duration> | null;
    if (duration) {
      const finish = startTime.clone();
      finish.addDuration(duration);
      end = instant(finish, tzidOf(startProp), calendar).iso;
    }
  }
  const recurrenceProp = component.getFirstProperty("recurrence-id");
  const recurrenceTime = recurrenceProp?.getFirstValue() as Time | null | undefined;
  const recurrenceId =
    recurrenceProp && recurrenceTime ? instant(recurrenceTime, tzidOf(recurrenceProp), calendar).iso : null;
  const rrule = component.getFirstPropertyValue("rrule");
  const attendees = component.getAllProperties("attendee").map((p) => ({
    email: mailto(String(p.getFirstValue() ?? "")),
    name: param(p, "cn"),
    role: param(p, "role"),
    status: param(p, "partstat"),
  }));
  const organizerProp = component.getFirstProperty("organizer");
  const exdates = component
    .getAllProperties("exdate")
    .flatMap((p) => (p.getValues() as Time[]).map((t) => instant(t, tzidOf(p), calendar).iso));
  const categories = component.getAllProperties("categories").flatMap((p) => p.getValues().map(String));
  const sequenceValue = component.getFirstPropertyValue("sequence");
  const sequence = sequenceValue === null ? null : Number(sequenceValue);
  return {
    event_id: recurrenceId ? `${uid}#${recurrenceId}` : uid,
    uid,
    recurrence_id: recurrenceId,
    calendar: calendar.name,
    summary: text(component, "summary"),
    description: text(component, "description"),
    location: text(component, "location"),
    status: text(component, "status")?.toUpperCase() ?? null,
    start: start.iso,
    end,
    all_day: startTime.isDate,
    start_local: start.local,
    time_zone: start.zone,
    rrule: rrule ? String(rrule) : null,
    exdates: exdates.length > 0 ? exdates : null,
    organizer: organizerProp ? mailto(String(organizerProp.getFirstValue() ?? "")) : null,
    organizer_name: organizerProp ? param(organizerProp, "cn") : null,
    attendees: attendees.length > 0 ? attendees : null,
    attendee_count: attendees.length,
    categories: categories.length > 0 ? categories : null,
    url: text(component, "url"),
    sequence: Number.isInteger(sequence) ? sequence : null,
    created: stamp(component, "created", calendar),
    last_modified: stamp(component, "last-modified", calendar) ?? stamp(component, "dtstamp", calendar),
  };
}

/** A date or date-time as a UTC instant, what the file wrote, and the zone it was read in. */
function instant(
  time: Time,
  tzid: string | null,
  calendar: CalendarContext,
): { iso: string; local: string; zone: string } {
  const wall = {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
  };
  const local = time.isDate ? wallIso(wall).slice(0, 10) : wallIso(wall);
  if (time.isDate) {
    return { iso: calendar.floating.toIso(wall), local, zone: `floating:${calendar.floating.zone}` };
  }
  if (time.zone?.tzid === "UTC" || tzid?.toUpperCase() === "UTC") {
    return {
      iso: new Date(
        Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second),
      ).toISOString(),
      local,
      zone: "UTC",
    };
  }
  if (tzid) {
    const defined = calendar.zones.get(tzid);
    if (defined) {
      const zoned = ICAL.Time.fromData({ ...wall, isDate: false }, defined);
      return { iso: new Date(zoned.toUnixTime() * 1000).toISOString(), local, zone: tzid };
    }
    // Intl validates a zone name slowly: remember each TZID's clock, or that Intl does not know it.
    let clock = calendar.clocks.get(tzid);
    if (clock === undefined) {
      clock = isKnownTimeZone(tzid) ? new WallClock(tzid) : null;
      calendar.clocks.set(tzid, clock);
    }
    if (clock) return { iso: clock.toIso(wall), local, zone: tzid };
  }
  return { iso: calendar.floating.toIso(wall), local, zone: `floating:${calendar.floating.zone}` };
}

function tzidOf(prop: InstanceType<typeof ICAL.Property>): string | null {
  const tzid = prop.getParameter("tzid");
  return typeof tzid === "string" && tzid !== "" ? tzid : null;
}

function text(component: Component, name: string): string | null {
  const value = component.getFirstPropertyValue(name);
  return value === null || value === undefined || value === "" ? null : String(value);
}

function param(prop: InstanceType<typeof ICAL.Property>, name: string): string | null {
  const value = prop.getParameter(name);
  return typeof value === "string" && value !== "" ? value : null;
}

function mailto(value: string): string {
  return value.replace(/^mailto:/i, "");
}

function stamp(component: Component, name: string, calendar: CalendarContext): string | null {
  const prop = component.getFirstProperty(name);
  const time = prop?.getFirstValue() as Time | null | undefined;
  return prop && time && typeof time === "object" && "isDate" in time
    ? instant(time, tzidOf(prop), calendar).iso
    : null;
}

export const ICAL_FORMAT: ImportFormat = {
  name: "ical",
  description: "import an iCalendar file (.ics: Google, Apple or Outlook calendar export) into `events`",
  flags: [
    {
      flags: "--time-zone <zone>",
      description:
        "IANA zone for floating times and all-day dates (default: the calendar's X-WR-TIMEZONE, else this machine's zone)",
    },
  ],
  open: (path, options) => openIcalSource(path, options.flags as IcalOptions),
  detect: (probe) => (probe.kind === "file" && /^\s*BEGIN:VCALENDAR\r?\n/i.test(probe.headText) ? 0.95 : 0),
};
