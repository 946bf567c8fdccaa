// One VEVENT as an `events` record (a single event, or an occurrence a RECURRENCE-ID overrides), with
// ical.js reading the properties; ical-recur.ts derives the occurrences of a series from the same record.
import ICAL from "ical.js";
import { type CalendarContext, type IcalTime, instant } from "./ical-time.js";

export type Component = InstanceType<typeof ICAL.Component>;
/** Only an event's DTSTART counts toward the summary's zone notes (one count per event). */
const QUIET = { count: false };
type Property = InstanceType<typeof ICAL.Property>;

/** A VEVENT's parsed component, or a message saying why it is none. */
export function parseEvent(lines: string[]): Component {
  try {
    return new ICAL.Component(ICAL.parse(lines.join("\r\n")) as unknown[]);
  } catch (error) {
    throw new Error(`unparseable VEVENT: ${(error as Error).message}`);
  }
}

export function isRecurring(component: Component): boolean {
  return component.hasProperty("rrule") || component.hasProperty("rdate");
}

export function startOf(component: Component): { time: IcalTime; tzid: string | null } {
  const uid = text(component, "uid");
  const prop = component.getFirstProperty("dtstart");
  const time = prop?.getFirstValue() as IcalTime | null | undefined;
  if (!prop || !time || typeof time !== "object" || !("isDate" in time)) {
    throw new Error(`VEVENT ${uid} has no DTSTART`);
  }
  return { time, tzid: tzidOf(prop) };
}

/** DTEND, or DTSTART plus DURATION, as a time in DTSTART's zone; null when the event gives neither. */
export function endOf(component: Component): { time: IcalTime; tzid: string | null } | null {
  const prop = component.getFirstProperty("dtend");
  const time = prop?.getFirstValue() as IcalTime | null | undefined;
  if (prop && time) return { time, tzid: tzidOf(prop) };
  const duration = component.getFirstPropertyValue("duration") as InstanceType<typeof ICAL.Duration> | null;
  if (!duration) return null;
  const start = startOf(component);
  const finish = start.time.clone();
  finish.addDuration(duration);
  return { time: finish, tzid: start.tzid };
}

/** The record of a VEVENT as written: a single event, or (with RECURRENCE-ID) one overridden occurrence. */
export function eventRecord(component: Component, calendar: CalendarContext): Record<string, unknown> {
  const uid = text(component, "uid");
  if (!uid) throw new Error("VEVENT has no UID");
  const start = startOf(component);
  const at = instant(start.time, start.tzid, calendar);
  const end = endOf(component);
  const recurrenceProp = component.getFirstProperty("recurrence-id");
  const recurrenceTime = recurrenceProp?.getFirstValue() as IcalTime | null | undefined;
  const recurrenceId =
    recurrenceProp && recurrenceTime
      ? instant(recurrenceTime, tzidOf(recurrenceProp), calendar, QUIET).iso
      : null;
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
    .flatMap((p) => (p.getValues() as IcalTime[]).map((t) => instant(t, tzidOf(p), calendar, QUIET).iso));
  const categories = component.getAllProperties("categories").flatMap((p) => p.getValues().map(String));
  const sequenceValue = component.getFirstPropertyValue("sequence");
  const sequence = sequenceValue === null ? null : Number(sequenceValue);
  return {
    event_id: recurrenceId ? `${uid}#${recurrenceId}` : uid,
    uid,
    recurrence_id: recurrenceId,
    series_id: recurrenceId ? uid : null,
    overridden: recurrenceId !== null,
    calendar: calendar.name,
    summary: text(component, "summary"),
    description: text(component, "description"),
    location: text(component, "location"),
    status: text(component, "status")?.toUpperCase() ?? null,
    start: at.iso,
    end: end ? instant(end.time, end.tzid, calendar, QUIET).iso : null,
    all_day: start.time.isDate,
    start_local: at.local,
    time_zone: at.zone,
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

export function tzidOf(prop: Property): string | null {
  const tzid = prop.getParameter("tzid");
  return typeof tzid === "string" && tzid !== "" ? tzid : null;
}

export function text(component: Component, name: string): string | null {
  const value = component.getFirstPropertyValue(name);
  return value === null || value === undefined || value === "" ? null : String(value);
}

function param(prop: Property, name: string): string | null {
  const value = prop.getParameter(name);
  return typeof value === "string" && value !== "" ? value : null;
}

function mailto(value: string): string {
  return value.replace(/^mailto:/i, "");
}

function stamp(component: Component, name: string, calendar: CalendarContext): string | null {
  const prop = component.getFirstProperty(name);
  const time = prop?.getFirstValue() as IcalTime | null | undefined;
  return prop && time && typeof time === "object" && "isDate" in time
    ? instant(time, tzidOf(prop), calendar, QUIET).iso
    : null;
}
