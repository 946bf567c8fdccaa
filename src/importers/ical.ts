// The iCalendar importer: an .ics file → `events` (each single event and each occurrence of a recurring
// one, inside a bounded window) and `series` (each recurring rule). The file streams as unfolded content
// lines split on BEGIN/END, one VEVENT at a time parsed by ical.js; a calendar's series and their
// overrides are held until its END:VCALENDAR, then expanded. A re-import removes what the calendar no
// longer produces (ical-reconcile.ts).
import { basename } from "node:path";
import { PdppError } from "../core/errors.js";
import { openCountedInput } from "./file-input.js";
import { type Component, eventRecord, isRecurring, parseEvent, text } from "./ical-event.js";
import { contentLines } from "./ical-lines.js";
import { ICAL_MANIFEST } from "./ical-manifest.js";
import { loadStored, type StoredCalendar, staleRecords } from "./ical-reconcile.js";
import { type ExpandWindow, expandSeries, MAX_OCCURRENCES } from "./ical-recur.js";
import { CalendarContext, zoneNotes } from "./ical-time.js";
import { addTimezone } from "./ical-zones.js";
import type { ImportFormat } from "./import-format.js";
import type { ImportItem, ImportSource } from "./types.js";
import { checkTimeZone, isKnownTimeZone, machineTimeZone } from "./wall-time.js";

export interface IcalOptions {
  /** Zone for floating times and all-day dates (default: the calendar's X-WR-TIMEZONE, else the machine's). */
  timeZone?: string;
  /** Occurrences of recurring events are stored from this date (YYYY-MM-DD, or 2y/18m/90d ago; default 2y). */
  expandFrom?: string;
  /** … until this date (YYYY-MM-DD, or 1y/6m/30d ahead; default 1y). */
  expandUntil?: string;
  /** "Today" for the relative defaults (tests). */
  now?: Date;
}

export async function openIcalSource(path: string, options: IcalOptions = {}): Promise<ImportSource> {
  const forced = options.timeZone === undefined ? undefined : checkTimeZone(options.timeZone);
  const window = expandWindow(options);
  const input = openCountedInput(path);
  let stored: StoredCalendar = { events: [], series: [] };
  const notes: string[] = [];
  return {
    manifest: ICAL_MANIFEST,
    items: icalItems(input.chunks, {
      fileName: basename(path),
      timeZone: forced,
      window,
      stored: () => stored,
      notes,
    }),
    bytesRead: input.bytesRead,
    totalBytes: input.totalBytes,
    notes: () => notes,
    // Before reading: what earlier imports into this connection stored, to remove what is gone since.
    prepare: async (context) => {
      stored = await loadStored(context.api, {
        connectorKey: ICAL_MANIFEST.connector_key,
        connectionLabel: context.connectionLabel,
      });
    },
    // Read in a worker thread (source-worker.ts): what prepare loaded goes there; nothing comes back.
    handoff: {
      prepared: () => stored,
      resume: (prepared) => {
        stored = prepared as StoredCalendar;
      },
      finished: () => null,
      adopt: () => {},
    },
  };
}

const DAY = 86_400_000;

/** The expansion window from the flags: a date, or a span back (from) or ahead (until) of today. */
export function expandWindow(options: IcalOptions): ExpandWindow {
  const today = new Date(options.now ?? Date.now());
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const at = (value: string, flag: string, sign: 1 | -1): number => {
    const span = /^(\d{1,3})([ymd])$/.exec(value);
    if (span) {
      const n = Number(span[1]) * sign;
      const d = new Date(midnight);
      if (span[2] === "y") d.setUTCFullYear(d.getUTCFullYear() + n);
      else if (span[2] === "m") d.setUTCMonth(d.getUTCMonth() + n);
      else d.setUTCDate(d.getUTCDate() + n);
      return d.getTime();
    }
    const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(date)) {
      throw new PdppError(
        "invalid_request",
        `${flag} ${value} is neither a date (2024-01-31) nor a span (2y, 18m, 90d).`,
      );
    }
    return date;
  };
  const from = at(options.expandFrom ?? "2y", "--expand-from", -1);
  const until = at(options.expandUntil ?? "1y", "--expand-until", 1) + DAY;
  if (from >= until) {
    throw new PdppError("invalid_request", "--expand-from must be before --expand-until.");
  }
  return { from, until };
}

interface Held {
  component: Component;
  position: string;
}

export async function* icalItems(
  chunks: AsyncIterable<Buffer>,
  options: {
    fileName: string;
    timeZone?: string;
    window: ExpandWindow;
    stored?: () => StoredCalendar;
    notes?: string[];
  },
): AsyncGenerator<ImportItem> {
  const newCalendar = () =>
    new CalendarContext(options.fileName.replace(/\.ics$/i, ""), options.timeZone ?? machineTimeZone());
  let calendar = newCalendar();
  const calendars: CalendarContext[] = [];
  const stack: string[] = [];
  let block: string[] | null = null; // lines of the VEVENT or VTIMEZONE being collected
  let blockLine = 0;
  let eventIndex = 0;
  let sawCalendar = false;
  const masters = new Map<string, Held>();
  const overrides = new Map<string, Held[]>();
  const written = { events: new Set<string>(), recurring: new Set<string>(), single: new Set<string>() };
  const tally = { series: 0, occurrences: 0, truncated: 0 };

  function* flushSeries(): Generator<ImportItem> {
    for (const uid of new Set([...masters.keys(), ...overrides.keys()])) {
      const master = masters.get(uid);
      yield* seriesItems(uid, master, overrides.get(uid) ?? []);
    }
    masters.clear();
    overrides.clear();
  }

  function* seriesItems(uid: string, master: Held | undefined, moved: Held[]): Generator<ImportItem> {
    const overridden = new Set<string>();
    let rrule: unknown = null;
    if (master) {
      try {
        rrule = eventRecord(master.component, calendar).rrule;
      } catch {
        // reported below, where the master itself is read
      }
    }
    for (const held of moved) {
      try {
        const data: Record<string, unknown> = { ...eventRecord(held.component, calendar), rrule };
        overridden.add(data.event_id as string);
        written.events.add(data.event_id as string);
        yield { stream: "events", position: held.position, data };
      } catch (error) {
        yield { error: (error as Error).message, position: held.position };
      }
    }
    if (!master) return;
    try {
      const base = eventRecord(master.component, calendar);
      const expansion = expandSeries(master.component, base, {
        calendar,
        window: options.window,
        overridden,
      });
      written.recurring.add(uid);
      tally.series++;
      tally.occurrences += expansion.series.occurrence_count as number;
      if (expansion.truncated) tally.truncated++;
      yield { stream: "series", position: master.position, data: expansion.series };
      for (const data of expansion.occurrences) {
        written.events.add(data.event_id as string);
        yield { stream: "events", position: `${master.position} occurrence ${data.recurrence_id}`, data };
      }
    } catch (error) {
      yield { error: (error as Error).message, position: master.position };
    }
  }

  function* endEvent(lines: string[], position: string): Generator<ImportItem> {
    let component: Component;
    try {
      component = parseEvent(lines);
    } catch (error) {
      yield { error: (error as Error).message, position };
      return;
    }
    const uid = text(component, "uid");
    if (!uid) {
      yield { error: "VEVENT has no UID", position };
      return;
    }
    if (component.hasProperty("recurrence-id")) {
      overrides.set(uid, [...(overrides.get(uid) ?? []), { component, position }]);
    } else if (isRecurring(component)) {
      masters.set(uid, { component, position });
    } else {
      try {
        const data = eventRecord(component, calendar);
        written.single.add(uid);
        written.events.add(data.event_id as string);
        yield { stream: "events", position, data };
      } catch (error) {
        yield { error: (error as Error).message, position };
      }
    }
  }

  for await (const { text: line, line: number } of contentLines(chunks)) {
    const marker = /^(BEGIN|END):(\S+)\s*$/i.exec(line);
    if (block) block.push(line);
    else if (stack.length === 1 && !marker) calendarProperty(line, calendar, options.timeZone);
    if (!marker) {
      if (stack.length === 0 && line.trim() !== "" && !sawCalendar) {
        sawCalendar = true; // report once: a file that is not iCalendar would reject every line
        yield { error: "text outside BEGIN:VCALENDAR … END:VCALENDAR", position: `line ${number}` };
      }
      continue;
    }
    const name = marker[2]!.toUpperCase();
    if (marker[1]!.toUpperCase() === "BEGIN") {
      if (name === "VCALENDAR" && stack.length === 0) {
        calendar = newCalendar();
        calendars.push(calendar);
        sawCalendar = true;
      }
      stack.push(name);
      if (stack.length === 2 && (name === "VEVENT" || name === "VTIMEZONE")) {
        block = [line];
        blockLine = number;
      }
      continue;
    }
    // END: pop to the matching BEGIN (tolerating a missing END of an inner component).
    const at = stack.lastIndexOf(name);
    if (at < 0) {
      yield { error: `END:${name} without BEGIN:${name}`, position: `line ${number}` };
      continue;
    }
    stack.length = at;
    if (stack.length === 0) yield* flushSeries();
    if (stack.length === 1 && block) {
      const lines = block;
      block = null;
      if (name === "VTIMEZONE") addTimezone(lines, calendar);
      else yield* endEvent(lines, `event ${++eventIndex} (line ${blockLine})`);
    }
  }
  if (stack.length > 0) {
    yield { error: `the file ends inside ${stack.at(-1)} (truncated?)`, position: `line ${blockLine}` };
  }
  yield* flushSeries();
  const stale = staleRecords(options.stored?.() ?? { events: [], series: [] }, written, options.window);
  for (const id of stale.events)
    yield { stream: "events", op: "delete", position: `stored event ${id}`, data: { event_id: id } };
  for (const id of stale.series)
    yield { stream: "series", op: "delete", position: `stored series ${id}`, data: { series_id: id } };
  options.notes?.push(...summaryNotes(calendars, tally, options.window));
}

/** X-WR-CALNAME names the calendar; X-WR-TIMEZONE is its zone for floating times (unless --time-zone). */
function calendarProperty(line: string, calendar: CalendarContext, forced: string | undefined): void {
  const m = /^(X-WR-CALNAME|X-WR-TIMEZONE)(?:;[^:]*)?:(.*)$/i.exec(line);
  if (!m) return;
  const value = m[2]!.trim();
  if (m[1]!.toUpperCase() === "X-WR-CALNAME") {
    if (value) calendar.name = value;
  } else if (!forced && isKnownTimeZone(value)) {
    calendar.floating = new CalendarContext(calendar.name, value).floating;
  }
}

function summaryNotes(
  calendars: CalendarContext[],
  tally: { series: number; occurrences: number; truncated: number },
  window: ExpandWindow,
): string[] {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const notes: string[] = [];
  if (tally.series > 0) {
    notes.push(
      `recurring events: ${tally.series} series stored as ${tally.occurrences} occurrences from ${day(window.from)} to ${day(window.until - DAY)} (--expand-from, --expand-until)`,
    );
  }
  if (tally.truncated > 0) {
    notes.push(
      `${tally.truncated} series hold more than ${MAX_OCCURRENCES} occurrences in that span: the first ${MAX_OCCURRENCES} of each are stored`,
    );
  }
  return [...notes, ...new Set(calendars.flatMap(zoneNotes))];
}

export const ICAL_FORMAT: ImportFormat = {
  name: "ical",
  description:
    "import an iCalendar file (.ics: Google, Apple or Outlook calendar export) into `events` (recurring ones as their occurrences) and `series`",
  flags: [
    {
      flags: "--time-zone <zone>",
      description:
        "IANA zone for floating times and all-day dates (default: the calendar's X-WR-TIMEZONE, else this machine's zone)",
    },
    {
      flags: "--expand-from <date>",
      description:
        "store occurrences of recurring events from this date: 2023-01-01, or a span back such as 5y (default: 2y)",
    },
    {
      flags: "--expand-until <date>",
      description: "… until this date: 2026-12-31, or a span ahead such as 6m (default: 1y)",
    },
  ],
  open: (path, options) => openIcalSource(path, options.flags as IcalOptions),
  readInWorker: true,
  detect: (probe) => (probe.kind === "file" && /^\s*BEGIN:VCALENDAR\r?\n/i.test(probe.headText) ? 0.95 : 0),
};
