// iCalendar files as Google, Outlook and Apple write them (RFC 5545 line folding at 75 octets, which may
// split a UTF-8 character; Outlook's Windows zone names; weekly series with EXDATE, UNTIL and overrides
// across a DST change); synthetic content.

const CRLF = "\r\n";

/** Fold a content line at 75 octets as RFC 5545 §3.1 allows, even inside a multi-byte character. */
export function foldBytes(line: string): Buffer {
  const bytes = Buffer.from(line, "utf8");
  const parts: Buffer[] = [bytes.subarray(0, 75)];
  for (let at = 75; at < bytes.length; at += 74) {
    parts.push(Buffer.concat([Buffer.from(" "), bytes.subarray(at, at + 74)]));
  }
  return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from(CRLF), p])));
}

/** A calendar file from content lines, each folded at 75 octets. */
export function calendarFile(lines: string[]): Buffer {
  return Buffer.concat(lines.flatMap((line) => [foldBytes(line), Buffer.from(CRLF)]));
}

/** A Google calendar whose description breaks a multi-byte character at a fold (é, €, 🎉 across lines). */
export function foldedUtf8Calendar(description: string): Buffer {
  return calendarFile([
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "X-WR-CALNAME:Café ☕ Kalender",
    "X-WR-TIMEZONE:Europe/Paris",
    "BEGIN:VEVENT",
    "DTSTART:20240610T080000Z",
    "DTEND:20240610T090000Z",
    "UID:folded@example.com",
    "SUMMARY:Réunion d’équipe — budget 2024 €€€ et café ☕ pour tout le monde 🎉🎉",
    `DESCRIPTION:${description}`,
    "END:VEVENT",
    "END:VCALENDAR",
  ]);
}

/** Outlook: Windows zone names, one without its VTIMEZONE, one defined, one nobody knows. */
export function outlookCalendar(): string {
  return [
    "BEGIN:VCALENDAR",
    "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN",
    "VERSION:2.0",
    "METHOD:PUBLISH",
    "X-WR-CALNAME:Work",
    "BEGIN:VTIMEZONE",
    "TZID:W. Europe Standard Time",
    "BEGIN:STANDARD",
    "DTSTART:16010101T030000",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:16010101T020000",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
    "END:DAYLIGHT",
    "END:VTIMEZONE",
    "BEGIN:VEVENT",
    "CLASS:PUBLIC",
    "DTSTART;TZID=Eastern Standard Time:20240708T090000",
    "DTEND;TZID=Eastern Standard Time:20240708T100000",
    "UID:040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A6B7C8D9E0F1A2B3C4D5",
    "SUMMARY:New York sync",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=W. Europe Standard Time:20240708T090000",
    "DTEND;TZID=W. Europe Standard Time:20240708T093000",
    "UID:040000008200E00074C5B7101A82E00800000000B1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6",
    "SUMMARY:Berlin standup",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Customized Time Zone:20240708T090000",
    "UID:custom-zone@example.com",
    "SUMMARY:Somewhere",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART:20240708T120000",
    "UID:floating-1@example.com",
    "SUMMARY:Lunch (no zone)",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join(CRLF);
}

/**
 * A team calendar in Europe/Berlin: a weekly Monday 09:00 standup from March to May 2024 (across the DST
 * change of 31 March) with an EXDATE and a moved occurrence, a yearly all-day birthday, a single event.
 * `variant` edits the series as a later export would: `ended` stops it after 15 April (UNTIL), `skip`
 * adds an EXDATE on 22 April.
 */
export function teamCalendar(variant: "first" | "ended" | "skip" = "first"): string {
  const until = variant === "ended" ? ";UNTIL=20240415T070000Z" : ";UNTIL=20240527T070000Z";
  const exdates =
    variant === "skip"
      ? "EXDATE;TZID=Europe/Berlin:20240408T090000,20240422T090000"
      : "EXDATE;TZID=Europe/Berlin:20240408T090000";
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "X-WR-CALNAME:Team",
    "X-WR-TIMEZONE:Europe/Berlin",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Berlin:20240304T090000",
    "DTEND;TZID=Europe/Berlin:20240304T091500",
    `RRULE:FREQ=WEEKLY;BYDAY=MO${until}`,
    exdates,
    "DTSTAMP:20240301T000000Z",
    "UID:standup-team@example.com",
    "SUMMARY:Standup",
    "LOCATION:Room 4",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Berlin:20240318T100000",
    "DTEND;TZID=Europe/Berlin:20240318T101500",
    "RECURRENCE-ID;TZID=Europe/Berlin:20240318T090000",
    "DTSTAMP:20240301T000000Z",
    "UID:standup-team@example.com",
    "SUMMARY:Standup (moved to 10)",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;VALUE=DATE:20200415",
    "DTEND;VALUE=DATE:20200416",
    "RRULE:FREQ=YEARLY",
    "UID:birthday-ann@example.com",
    "SUMMARY:Ann's birthday",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART:20240410T120000Z",
    "DTEND:20240410T130000Z",
    "UID:lunch@example.com",
    "SUMMARY:Team lunch",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join(CRLF);
}
