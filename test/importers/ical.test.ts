// The iCalendar importer (ical.js): a recurring all-day event in Europe/Berlin, TZID with VTIMEZONE, series
// expanded into occurrences with a moved one (RECURRENCE-ID) in its place, floating times, folded lines,
// attendees, rejects, re-import. Windows zones, UTF-8 folding, re-imports of series: ical-series.test.ts.
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
  const source = await openIcalSource(path, {
    timeZone,
    expandFrom: "2024-01-01",
    expandUntil: "2024-12-31",
  });
  const items: ImportItem[] = [];
  for await (const item of source.items) items.push(item);
  return items;
}

/** [stream, id, start, end, summary, time_zone] of each record, errors as their position and reason. */
function rows(items: ImportItem[]): string[][] {
  return items.map((i) =>
    "error" in i
      ? ["error", i.position, i.error]
      : [
          i.stream,
          String(i.data.event_id ?? i.data.series_id),
          String(i.data.start ?? i.data.first_start),
          String(i.data.end ?? i.data.first_end),
          String(i.data.summary),
          String(i.data.time_zone),
        ],
  );
}

const YEAR_2024 = { expandFrom: "2024-01-01", expandUntil: "2024-12-31" };

test(
  "events of a Berlin calendar: a single event now, each series then as its rule and its occurrences in the window",
  withDir(async (dir) => {
    const path = join(dir, "family.ics");
    writeFileSync(path, berlinCalendar());
    const source = await openIcalSource(path, YEAR_2024);
    const items: ImportItem[] = [];
    for await (const item of source.items) items.push(item);
    const standup = (day: string) => [
      "events",
      `standup@example.com#2024-${day}T07:00:00.000Z`,
      `2024-${day}T07:00:00.000Z`,
      `2024-${day}T07:30:00.000Z`,
      "Standup",
      "Europe/Berlin",
    ];
    assert.deepEqual(rows(items), [
      [
        "events",
        "floating@example.com",
        "2024-01-01T11:00:00.000Z",
        "2024-01-01T12:00:00.000Z",
        "Lunch",
        "floating:Europe/Berlin",
      ],
      ["error", "event 5 (line 59)", "VEVENT has no UID"],
      // All-day dates are floating: read at midnight in the calendar's X-WR-TIMEZONE.
      [
        "series",
        "birthday-1@example.com",
        "2024-03-14T23:00:00.000Z",
        "2024-03-15T23:00:00.000Z",
        "Mum's birthday",
        "floating:Europe/Berlin",
      ],
      [
        "events",
        "birthday-1@example.com#2024-03-14T23:00:00.000Z",
        "2024-03-14T23:00:00.000Z",
        "2024-03-15T23:00:00.000Z",
        "Mum's birthday",
        "floating:Europe/Berlin",
      ],
      // The moved occurrence keeps the id of the one it replaces (its RECURRENCE-ID).
      [
        "events",
        "standup@example.com#2024-07-15T07:00:00.000Z",
        "2024-07-15T08:00:00.000Z",
        "2024-07-15T08:30:00.000Z",
        "Standup (moved)",
        "Europe/Berlin",
      ],
      [
        "series",
        "standup@example.com",
        "2024-07-08T07:00:00.000Z",
        "2024-07-08T07:30:00.000Z",
        "Standup",
        "Europe/Berlin",
      ],
      ...["07-08", "07-22", "07-29", "08-05", "08-12", "08-19", "08-26", "09-02", "09-09"].map(standup),
    ]);
    const byId = new Map(
      items.flatMap((i) =>
        "data" in i ? [[String(i.data.event_id ?? `series ${i.data.series_id}`), i.data]] : [],
      ),
    );
    const first = byId.get("standup@example.com#2024-07-08T07:00:00.000Z")!;
    assert.deepEqual(
      [
        first.series_id,
        first.recurrence_id,
        first.overridden,
        first.rrule,
        first.attendee_count,
        first.organizer,
      ],
      [
        "standup@example.com",
        "2024-07-08T07:00:00.000Z",
        false,
        "FREQ=WEEKLY;COUNT=10;BYDAY=MO",
        2,
        "ann@example.com",
      ],
    );
    const moved = byId.get("standup@example.com#2024-07-15T07:00:00.000Z")!;
    assert.deepEqual(
      [moved.series_id, moved.overridden, moved.rrule],
      ["standup@example.com", true, "FREQ=WEEKLY;COUNT=10;BYDAY=MO"],
    );
    const series = byId.get("series standup@example.com")!;
    assert.deepEqual(
      [series.occurrence_count, series.truncated, series.expanded_from, series.expanded_until],
      [10, false, "2024-01-01T00:00:00.000Z", "2025-01-01T00:00:00.000Z"],
    );
    assert.deepEqual(source.notes?.(), [
      "recurring events: 2 series stored as 11 occurrences from 2024-01-01 to 2024-12-31 (--expand-from, --expand-until)",
      "1 event without a zone (floating) read in Europe/Berlin; pass --time-zone to read them in another zone",
    ]);
  }),
);

test(
  "--time-zone overrides X-WR-TIMEZONE for floating times only; TZID times do not move",
  withDir(async (dir) => {
    const path = join(dir, "family.ics");
    writeFileSync(path, berlinCalendar());
    const starts = (await itemsOf(path, "UTC"))
      .filter((i) => "data" in i && i.stream === "events")
      .map((i) => ("data" in i ? i.data.start : null))
      .slice(0, 4);
    assert.deepEqual(starts, [
      "2024-01-01T12:00:00.000Z",
      "2024-03-15T00:00:00.000Z",
      "2024-07-15T08:00:00.000Z",
      "2024-07-08T07:00:00.000Z",
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
      const flags = { expandFrom: "2024-01-01", expandUntil: "2024-12-31" };
      const first = await importFile(app.api, { kind: "ical", path, flags });
      // 1 single event, 2 series, 11 occurrences (1 birthday, 10 standups of which one moved).
      assert.deepEqual([first.read, first.added, first.rejected], [14, 14, 1]);
      assert.deepEqual(first.rejections, [{ position: "event 5 (line 59)", reason: "VEVENT has no UID" }]);
      const again = await importFile(app.api, { kind: "ical", path, flags });
      assert.deepEqual(
        [again.added, again.updated, again.unchanged, again.rejected, again.deleted ?? 0],
        [0, 0, 14, 1, 0],
      );
    } finally {
      await app.close();
    }
  }),
);
