// The connector manifest of the built-in `ical` importer (iCalendar .ics files, RFC 5545).
import type { Manifest } from "../core/manifest.js";

export const ICAL_MANIFEST: Manifest = {
  connector_key: "ical",
  display_name: "Calendar (iCalendar)",
  version: "1",
  description: "Events from iCalendar (.ics) files: Google Calendar, Apple Calendar, Outlook exports.",
  streams: [
    {
      name: "events",
      display_name: "Events",
      primary_key: ["event_id"],
      cursor_field: "last_modified",
      time_field: "start",
      title_field: "summary",
      schema: {
        type: "object",
        properties: {
          event_id: { type: "string", description: "UID, plus #RECURRENCE-ID for an overridden occurrence." },
          uid: { type: "string" },
          recurrence_id: {
            type: "string",
            format: "date-time",
            description:
              "The occurrence this record overrides (RECURRENCE-ID), null for a series or single event.",
          },
          calendar: { type: "string", description: "X-WR-CALNAME, else the file name." },
          summary: { type: "string" },
          description: { type: "string" },
          location: { type: "string" },
          status: { type: "string", description: "CONFIRMED, TENTATIVE or CANCELLED." },
          start: { type: "string", format: "date-time", description: "First occurrence, as a UTC instant." },
          end: { type: "string", format: "date-time" },
          all_day: { type: "boolean" },
          start_local: {
            type: "string",
            description: "DTSTART as written: 2024-01-01 or 2024-01-01T09:00:00.",
          },
          time_zone: {
            type: "string",
            description: "TZID of DTSTART, UTC, or floating:<zone> when read in the import's zone.",
          },
          rrule: { type: "string", description: "The recurrence rule as text (FREQ=WEEKLY;BYDAY=MO)." },
          exdates: { type: "array", items: { type: "string" } },
          organizer: { type: "string", description: "Organizer's e-mail address." },
          organizer_name: { type: "string" },
          attendees: {
            type: "array",
            items: { type: "object" },
            description: "{email, name, role, status} per ATTENDEE.",
          },
          attendee_count: { type: "integer" },
          categories: { type: "array", items: { type: "string" } },
          url: { type: "string" },
          sequence: { type: "integer" },
          created: { type: "string", format: "date-time" },
          last_modified: { type: "string", format: "date-time" },
        },
        required: ["event_id", "uid"],
      },
      text_fields: ["description"],
      query: {
        search: ["summary", "description", "location", "organizer"],
        exact_filters: ["calendar", "status", "all_day", "organizer", "uid", "time_zone"],
        range_filters: {
          start: ["gte", "gt", "lte", "lt"],
          end: ["gte", "gt", "lte", "lt"],
          attendee_count: ["gte", "lte"],
        },
        aggregations: {
          group_by: ["calendar", "status", "organizer", "all_day"],
          group_by_time: ["start"],
          sum: ["attendee_count"],
          min: ["start"],
          max: ["start"],
          count_distinct: ["organizer", "calendar"],
        },
      },
    },
  ],
};
