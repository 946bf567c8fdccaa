// A calendar's VTIMEZONE definitions, read with ical.js so its events' TZIDs mean what the file says.
import ICAL from "ical.js";
import type { CalendarContext } from "./ical-time.js";

export function addTimezone(lines: string[], calendar: CalendarContext): void {
  try {
    const component = new ICAL.Component(ICAL.parse(lines.join("\r\n")) as unknown[]);
    const tzid = String(component.getFirstPropertyValue("tzid") ?? "");
    if (tzid) calendar.zones.set(tzid, new ICAL.Timezone({ component, tzid }));
  } catch {
    // A broken VTIMEZONE only matters to events that use it: they fall back to Intl or floating time.
  }
}
