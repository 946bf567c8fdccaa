// The iCalendar importer (ical.js): a recurring all-day event in Europe/Berlin, TZID with VTIMEZONE, a moved
// occurrence (RECURRENCE-ID) as its own record, floating times, folded lines, attendees, rejects, re-import.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openIcalSource } from "../../src/importers/ical.js";
import { importFile } from "../../src/importers/import-file.js";
import type { ImportItem } from "../../src/importers/types.js";
import { berlinCalendar } from "../helpers-importers/life-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-ical-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function itemsOf(path: string, timeZone?: string): Promise<ImportItem[]> {
  const source = await openIcalSource(path, { timeZone });
  const items: ImportItem[] = [];
  for await (const item of source.items) items.push(item);
  return items;
}

const common = {
  calendar: "Family",
  location: null,
  status: null,
  exdates: null,
  organizer: null,
  organizer_name: null,
  attendees: null,
  attendee_count: 0,
  categories: null,
  url: null,
  sequence: null,
  created: null,
  last_modified: null,
  description: null,
  rrule: null,
  recurrence_id: null,
};

test(
  "events of a Berlin calendar: all-day yearly, weekly with TZID, a moved occurrence, a floating lunch",
  withDir(async (dir) => {
    const path = join(dir, "family.ics");
    writeFileSync(path, berlinCalendar());
    const items = await itemsOf(path);
    assert.deepEqual(items, [
      {
        stream: "events",
        position: "event 1 (line 23)",
        data: {
          ...common,
          event_id: "birthday-1@example.com",
          uid: "birthday-1@example.com",
          summary: "Mum's birthday",
          description:
            "Call her in the morning, and bring flowers. This line is long enough to be folded by the exporter.",
          // All-day dates are floating: read at midnight in the calendar's X-WR-TIMEZONE.
          start: "2024-03-14T23:00:00.000Z",
          end: "2024-03-15T23:00:00.000Z",
          all_day: true,
          start_local: "2024-03-15",
          time_zone: "floating:Europe/Berlin",
          rrule: "FREQ=YEARLY",
          last_modified: "2024-01-01T00:00:00.000Z",
        },
      },
      {
        stream: "events",
        position: "event 2 (line 33)",
        data: {
          ...common,
          event_id: "standup@example.com",
          uid: "standup@example.com",
          summary: "Standup",
          location: "Room 1",
          status: "CONFIRMED",
          start: "2024-07-08T07:00:00.000Z",
          end: "2024-07-08T07:30:00.000Z",
          all_day: false,
          start_local: "2024-07-08T09:00:00",
          time_zone: "Europe/Berlin",
          rrule: "FREQ=WEEKLY;COUNT=10;BYDAY=MO",
          organizer: "ann@example.com",
          organizer_name: "Ann",
          attendees: [
            { email: "bob@example.com", name: "Bob", role: "REQ-PARTICIPANT", status: "ACCEPTED" },
            { email: "cy@example.com", name: "Cy", role: null, status: "DECLINED" },
          ],
          attendee_count: 2,
          sequence: 2,
        },
      },
      {
        stream: "events",
        position: "event 3 (line 46)",
        data: {
          ...common,
          event_id: "standup@example.com#2024-07-15T07:00:00.000Z",
          uid: "standup@example.com",
          recurrence_id: "2024-07-15T07:00:00.000Z",
          summary: "Standup (moved)",
          start: "2024-07-15T08:00:00.000Z",
          end: "2024-07-15T08:30:00.000Z",
          all_day: false,
          start_local: "2024-07-15T10:00:00",
          time_zone: "Europe/Berlin",
        },
      },
      {
        stream: "events",
        position: "event 4 (line 53)",
        data: {
          ...common,
          event_id: "floating@example.com",
          uid: "floating@example.com",
          summary: "Lunch",
          start: "2024-01-01T11:00:00.000Z",
          end: "2024-01-01T12:00:00.000Z",
          all_day: false,
          start_local: "2024-01-01T12:00:00",
          time_zone: "floating:Europe/Berlin",
        },
      },
      { error: "VEVENT has no UID", position: "event 5 (line 59)" },
    ]);
  }),
);

test(
  "--time-zone overrides X-WR-TIMEZONE for floating times only; TZID times do not move",
  withDir(async (dir) => {
    const path = join(dir, "family.ics");
    writeFileSync(path, berlinCalendar());
    const starts = (await itemsOf(path, "UTC")).map((i) => ("data" in i ? i.data.start : null));
    assert.deepEqual(starts, [
      "2024-03-15T00:00:00.000Z",
      "2024-07-08T07:00:00.000Z",
      "2024-07-15T08:00:00.000Z",
      "2024-01-01T12:00:00.000Z",
      null,
    ]);
    await assert.rejects(
      openIcalSource(path, { timeZone: "Nowhere" }),
      /--time-zone Nowhere is not a time zone/,
    );
  }),
);

test(
  "a truncated file and text outside a calendar are reported with their line",
  withDir(async (dir) => {
    const path = join(dir, "broken.ics");
    writeFileSync(
      path,
      "hello\nBEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20240101T100000Z\nEND:VEVENT\nBEGIN:VEVENT\nUID:b\n",
    );
    const items = await itemsOf(path);
    assert.deepEqual(
      items.map((i) => ("error" in i ? `${i.position}: ${i.error}` : `${i.position}: ${i.data.event_id}`)),
      [
        "line 1: text outside BEGIN:VCALENDAR … END:VCALENDAR",
        "event 1 (line 3): a",
        "line 7: the file ends inside VEVENT (truncated?)",
      ],
    );
  }),
);

test(
  "importing twice: the second run reports every event unchanged; the malformed one stays rejected",
  withDir(async (dir) => {
    const app = await openOwnerApp();
    try {
      const path = join(dir, "family.ics");
      writeFileSync(path, berlinCalendar());
      const first = await importFile(app.api, { kind: "ical", path });
      assert.deepEqual([first.read, first.added, first.rejected], [4, 4, 1]);
      assert.deepEqual(first.rejections, [{ position: "event 5 (line 59)", reason: "VEVENT has no UID" }]);
      const again = await importFile(app.api, { kind: "ical", path });
      assert.deepEqual([again.added, again.updated, again.unchanged, again.rejected], [0, 0, 4, 1]);
    } finally {
      await app.close();
    }
  }),
);
