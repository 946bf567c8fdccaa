// iCalendar as agents need it: a character split by a fold survives, Outlook's Windows zone names mean
// their IANA zones (what stays floating is said), and a weekly series is on the calendar on each of its
// Mondays for range queries and counts; re-imports of an edited series leave neither duplicates nor
// removed occurrences, nor the first importer's one-record-per-series. Read back over MCP, on both stores.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { expandWindow, openIcalSource } from "../../src/importers/ical.js";
import { ICAL_MANIFEST } from "../../src/importers/ical-manifest.js";
import { importFile } from "../../src/importers/import-file.js";
import { openOwnerSink } from "../../src/importers/owner-sink.js";
import type { ImportItem } from "../../src/importers/types.js";
import { testBackends } from "../helpers/backends.js";
import { agentView } from "../helpers-importers/agent-view.js";
import { foldedUtf8Calendar, outlookCalendar, teamCalendar } from "../helpers-importers/ical-fixtures.js";
import { type OwnerApp, openOwnerApp, openOwnerAppOn } from "../helpers-importers/owner-app.js";

const YEAR_2024 = { expandFrom: "2024-01-01", expandUntil: "2024-12-31" };

async function withApp(open: () => Promise<OwnerApp>, fn: (app: OwnerApp, dir: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-ical-series-"));
  const app = await open();
  try {
    await fn(app, dir);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Page = { data: { data: Record<string, unknown> }[]; meta: { count?: number } };

test("a UTF-8 character split across a folded line arrives whole (bytes are unfolded before decoding)", async () => {
  await withApp(openOwnerApp, async (app, dir) => {
    const description =
      "Überblick: Kosten 12 € pro Person, Anmeldung bis Freitag — bitte Fotos 📷 mitbringen und Grüße an alle! Ça va être génial, 日本語も大丈夫です。";
    const file = foldedUtf8Calendar(description);
    // The fixture really splits characters: some folded line starts inside a multi-byte sequence.
    assert.ok(file.toString("utf8").includes("\ufffd") || /\r\n [\x80-\xbf]/.test(file.toString("latin1")));
    const path = join(dir, "cafe.ics");
    writeFileSync(path, file);
    await importFile(app.api, { kind: "ical", path, flags: YEAR_2024 });
    const agent = await agentView(app, [ICAL_MANIFEST]);
    const page = (await agent.call("query_records", { stream: "events" })).data as Page;
    const event = page.data[0]!.data;
    assert.equal(event.summary, "Réunion d’équipe — budget 2024 €€€ et café ☕ pour tout le monde 🎉🎉");
    assert.equal(event.description, description);
    assert.equal(event.calendar, "Café ☕ Kalender");
  });
});

test("Outlook's Windows zone names are read as their IANA zones; what stays floating is named in the summary", async () => {
  await withApp(openOwnerApp, async (app, dir) => {
    const path = join(dir, "work.ics");
    writeFileSync(path, outlookCalendar());
    const result = await importFile(app.api, {
      kind: "ical",
      path,
      flags: { ...YEAR_2024, timeZone: "Europe/Lisbon" },
    });
    assert.deepEqual(result.notes, [
      'TZID "Eastern Standard Time" (a Windows zone name) read as America/New_York',
      'events whose TZID no zone database knows read as floating Europe/Lisbon time: "Customized Time Zone" (1); pass --time-zone to read them in another zone',
      "1 event without a zone (floating) read in Europe/Lisbon; pass --time-zone to read them in another zone",
    ]);
    const agent = await agentView(app, [ICAL_MANIFEST]);
    const page = (await agent.call("query_records", { stream: "events", sort: "start" })).data as Page;
    assert.deepEqual(
      page.data.map((r) => [r.data.summary, r.data.start, r.data.end ?? null, r.data.time_zone]),
      [
        // 09:00 in W. Europe Standard Time (the file's VTIMEZONE) is 07:00 UTC in summer.
        ["Berlin standup", "2024-07-08T07:00:00.000Z", "2024-07-08T07:30:00.000Z", "W. Europe Standard Time"],
        ["Somewhere", "2024-07-08T08:00:00.000Z", null, "floating:Europe/Lisbon"],
        ["Lunch (no zone)", "2024-07-08T11:00:00.000Z", null, "floating:Europe/Lisbon"],
        // 09:00 in Eastern Standard Time, which the file does not define: New York's 09:00 EDT.
        ["New York sync", "2024-07-08T13:00:00.000Z", "2024-07-08T14:00:00.000Z", "America/New_York"],
      ],
    );
  });
});

test("--expand-from and --expand-until take dates or spans; a bad or empty span is refused", () => {
  const now = new Date("2026-03-15T10:00:00Z");
  const iso = (w: { from: number; until: number }) => [
    new Date(w.from).toISOString(),
    new Date(w.until).toISOString(),
  ];
  assert.deepEqual(iso(expandWindow({ now })), ["2024-03-15T00:00:00.000Z", "2027-03-16T00:00:00.000Z"]);
  assert.deepEqual(iso(expandWindow({ now, expandFrom: "18m", expandUntil: "30d" })), [
    "2024-09-15T00:00:00.000Z",
    "2026-04-15T00:00:00.000Z",
  ]);
  assert.deepEqual(iso(expandWindow({ now, expandFrom: "2020-01-01", expandUntil: "2020-12-31" })), [
    "2020-01-01T00:00:00.000Z",
    "2021-01-01T00:00:00.000Z",
  ]);
  assert.throws(
    () => expandWindow({ now, expandFrom: "last year" }),
    /--expand-from last year is neither a date \(2024-01-31\) nor a span \(2y, 18m, 90d\)\./,
  );
  assert.throws(
    () => expandWindow({ now, expandFrom: "2025-01-01", expandUntil: "2024-01-01" }),
    /--expand-from must be before --expand-until\./,
  );
});

test("a series with more occurrences in the window than are stored says so", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-ical-series-"));
  try {
    const path = join(dir, "minutely.ics");
    writeFileSync(
      path,
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:tick@example.com\r\nDTSTART:20240101T000000Z\r\nRRULE:FREQ=MINUTELY\r\nSUMMARY:Tick\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    );
    const source = await openIcalSource(path, { expandFrom: "2024-01-01", expandUntil: "2024-01-10" });
    const items: ImportItem[] = [];
    for await (const item of source.items) items.push(item);
    assert.equal(items.filter((i) => "data" in i && i.stream === "events").length, 10_000);
    const series = items.find((i) => "data" in i && i.stream === "series");
    assert.deepEqual(series && "data" in series && [series.data.occurrence_count, series.data.truncated], [
      10_000,
      true,
    ]);
    assert.equal(
      source.notes?.()[1],
      "1 series hold more than 10000 occurrences in that span: the first 10000 of each are stored",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const backend of testBackends()) {
  test(`${backend.name}: a weekly series is on the calendar each Monday; edited re-imports neither double nor keep what is gone`, async () => {
    await withApp(
      () => openOwnerAppOn(backend),
      async (app, dir) => {
        // What the first importer stored: one record for the whole series, at its first occurrence.
        const v1 = { ...ICAL_MANIFEST, version: "1", streams: [ICAL_MANIFEST.streams[0]!] };
        const sink = await openOwnerSink(app.api, { manifest: v1, connectionLabel: "team.ics" });
        await sink.write("events", [
          {
            event_id: "standup-team@example.com",
            uid: "standup-team@example.com",
            summary: "Standup",
            start: "2024-03-04T08:00:00.000Z",
          },
        ]);
        const path = join(dir, "team.ics");
        writeFileSync(path, teamCalendar());
        const first = await importFile(app.api, { kind: "ical", path, flags: YEAR_2024 });
        // 12 standups (one moved, one excluded), a birthday, a lunch, 2 series; the old series record goes.
        assert.deepEqual([first.added, first.updated, first.deleted], [16, 0, 1]);
        const agent = await agentView(app, [ICAL_MANIFEST]);
        const monday = async (day: string) =>
          (
            (
              await agent.call("query_records", {
                stream: "events",
                filter: [
                  { field: "start", op: "gte", value: `${day}T00:00:00Z` },
                  { field: "start", op: "lt", value: `${day}T23:59:59Z` },
                ],
              })
            ).data as Page
          ).data.map((r) => [r.data.summary, r.data.start, r.data.series_id]);
        // "What is on my calendar next Monday?" Before and after the DST change, 09:00 Berlin both times.
        assert.deepEqual(await monday("2024-03-25"), [
          ["Standup", "2024-03-25T08:00:00.000Z", "standup-team@example.com"],
        ]);
        assert.deepEqual(await monday("2024-04-22"), [
          ["Standup", "2024-04-22T07:00:00.000Z", "standup-team@example.com"],
        ]);
        assert.deepEqual(await monday("2024-04-08"), []); // EXDATE
        assert.deepEqual(await monday("2024-03-18"), [
          ["Standup (moved to 10)", "2024-03-18T09:00:00.000Z", "standup-team@example.com"],
        ]);
        const byMonth = async () =>
          (
            (
              await agent.call("aggregate", {
                stream: "events",
                metric: "count",
                group_by_time: "start",
                granularity: "month",
              })
            ).data as {
              groups: { key: string; value: number }[];
            }
          ).groups.map((g) => [g.key, g.value]);
        assert.deepEqual(await byMonth(), [
          ["2024-03", 4],
          ["2024-04", 6],
          ["2024-05", 4],
        ]);

        const again = await importFile(app.api, { kind: "ical", path, flags: YEAR_2024 });
        assert.deepEqual([again.added, again.updated, again.unchanged, again.deleted ?? 0], [0, 0, 16, 0]);
        writeFileSync(path, teamCalendar("skip"));
        const skipped = await importFile(app.api, { kind: "ical", path, flags: YEAR_2024 });
        assert.deepEqual([skipped.added, skipped.deleted], [0, 1]);
        assert.deepEqual(await monday("2024-04-22"), []);
        writeFileSync(path, teamCalendar("ended"));
        const ended = await importFile(app.api, { kind: "ical", path, flags: YEAR_2024 });
        assert.deepEqual([ended.added, ended.deleted], [0, 5]);
        assert.deepEqual(await byMonth(), [
          ["2024-03", 4],
          ["2024-04", 4],
        ]);
      },
    );
  });
}
