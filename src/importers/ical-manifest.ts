// The connector manifest of the built-in `ical` importer (iCalendar .ics files, RFC 5545).
import type { FieldSchema, Manifest } from "../core/manifest.js";

/** Fields an occurrence and its series both carry. */
const SHARED_PROPERTIES: Record<string, FieldSchema> = {
  attendee_count: { type: "integer" },
  categories: { type: "array", items: { type: "string" } },
  url: { type: "string" },
  sequence: { type: "integer" },
  created: { type: "string", format: "date-time" },
  last_modified: { type: "string", format: "date-time" },
};

export const ICAL_MANIFEST: Manifest = {
  connector_key: "ical",
  display_name: "Calendar (iCalendar)",
  version: "2",
  description:
    "Events from iCalendar (.ics) files: Google Calendar, Apple Calendar, Outlook exports. A recurring event is stored as its occurrences in a window around the import (each an `events` record) and its rule (`series`).",
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
          event_id: {
            type: "string",
            description: "UID for a single event; UID#<original start, UTC> for an occurrence of a series.",
          },
          uid: { type: "string" },
          recurrence_id: {
            type: "string",
            format: "date-time",
            description: "An occurrence's original start (its RECURRENCE-ID), null for a single event.",
          },
          series_id: {
            type: "string",
            description:
              "The series (its UID, a `series` record) an occurrence belongs to; null for a single event.",
          },
          overridden: {
            type: "boolean",
            description:
              "The occurrence was changed on its own (moved, renamed): the file's override, not the rule.",
          },
          calendar: { type: "string", description: "X-WR-CALNAME, else the file name." },
          summary: { type: "string" },
          description: { type: "string" },
          location: { type: "string" },
          status: { type: "string", description: "CONFIRMED, TENTATIVE or CANCELLED." },
          start: {
            type: "string",
            format: "date-time",
            description: "The event's or occurrence's start, UTC.",
          },
          end: { type: "string", format: "date-time" },
          all_day: { type: "boolean" },
          start_local: {
            type: "string",
            description: "DTSTART as written: 2024-01-01 or 2024-01-01T09:00:00.",
          },
          time_zone: {
            type: "string",
            description:
              "TZID of DTSTART (a Windows zone name as its IANA equivalent), UTC, or floating:<zone> when read in the import's zone.",
          },
          rrule: {
            type: "string",
            description: "An occurrence's series rule as text (FREQ=WEEKLY;BYDAY=MO).",
          },
          exdates: { type: "array", items: { type: "string" } },
          organizer: { type: "string", description: "Organizer's e-mail address." },
          organizer_name: { type: "string" },
          attendees: {
            type: "array",
            items: { type: "object" },
            description: "{email, name, role, status} per ATTENDEE.",
          },
          ...SHARED_PROPERTIES,
        },
        required: ["event_id", "uid"],
      },
      text_fields: ["description"],
      query: {
        search: ["summary", "description", "location", "organizer"],
        exact_filters: [
          "calendar",
          "status",
          "all_day",
          "organizer",
          "uid",
          "series_id",
          "overridden",
          "time_zone",
        ],
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
    {
      name: "series",
      display_name: "Recurring events",
      primary_key: ["series_id"],
      cursor_field: "last_modified",
      time_field: "first_start",
      title_field: "summary",
      schema: {
        type: "object",
        properties: {
          series_id: {
            type: "string",
            description: "The series' UID; its occurrences carry it as series_id.",
          },
          calendar: { type: "string" },
          summary: { type: "string" },
          description: { type: "string" },
          location: { type: "string" },
          status: { type: "string" },
          rrule: { type: "string", description: "The recurrence rule as text (FREQ=WEEKLY;BYDAY=MO)." },
          exdates: { type: "array", items: { type: "string" }, description: "Excluded occurrences (UTC)." },
          first_start: { type: "string", format: "date-time", description: "DTSTART: the first occurrence." },
          first_end: { type: "string", format: "date-time" },
          all_day: { type: "boolean" },
          start_local: { type: "string" },
          time_zone: { type: "string" },
          organizer: { type: "string" },
          organizer_name: { type: "string" },
          ...SHARED_PROPERTIES,
          expanded_from: {
            type: "string",
            format: "date-time",
            description: "Occurrences are stored from here …",
          },
          expanded_until: { type: "string", format: "date-time", description: "… to here (exclusive)." },
          occurrence_count: {
            type: "integer",
            description: "Occurrences in that span (overridden ones included).",
          },
          truncated: { type: "boolean", description: "More occurrences fall in the span than are stored." },
        },
        required: ["series_id"],
      },
      text_fields: ["description"],
      query: {
        search: ["summary", "description", "location", "organizer"],
        exact_filters: ["calendar", "status", "organizer", "all_day"],
        range_filters: { first_start: ["gte", "gt", "lte", "lt"], occurrence_count: ["gte", "lte"] },
        aggregations: {
          group_by: ["calendar", "organizer"],
          group_by_time: ["first_start"],
          sum: ["occurrence_count"],
          min: ["first_start"],
          max: ["first_start"],
          count_distinct: ["organizer"],
        },
      },
    },
  ],
};
