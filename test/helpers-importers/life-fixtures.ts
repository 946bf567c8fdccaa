// Real-format fixtures for the whatsapp, ical and takeout importers, built in the tests: WhatsApp chat
// exports in the iOS and Android layouts of two locales, an iCalendar file, Google Takeout parts.

const LRM = "\u200e";
const NNBSP = "\u202f";

/** iOS, en-GB: `[31/12/2023, 22:15:42] Name: text`, system lines marked with U+200E. */
export function iosGbChat(): string {
  return [
    `[31/12/2023, 22:15:42] Family: ${LRM}Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them.`,
    `${LRM}[31/12/2023, 22:15:42] Family: ${LRM}Alice added Bob`,
    "[31/12/2023, 22:16:01] Alice: Happy new year!",
    "See you tomorrow",
    "",
    "bring the cake",
    `[01/01/2024, 09:05:00] Bob: ${LRM}<attached: 00000012-PHOTO-2024-01-01-09-05-00.jpg>`,
    `[01/01/2024, 09:05:10] Bob: ${LRM}image omitted`,
    "[01/01/2024, 09:05:10] Bob: ok",
    "[01/01/2024, 09:05:10] Bob: ok",
  ].join("\r\n");
}

/** iOS, en-US: `[12/31/23, 10:15:42 PM] Name: text` with the narrow no-break space before PM. */
export function iosUsChat(): string {
  return [
    `[12/31/23, 10:15:42${NNBSP}PM] Alice: Happy new year!`,
    `[1/1/24, 12:05:00${NNBSP}AM] Bob: ${LRM}<attached: 00000013-AUDIO-2024-01-01-00-05-00.opus>`,
    `[1/1/24, 12:30:00${NNBSP}PM] Alice: lunch?`,
    "second line",
  ].join("\n");
}

/** Android, en-GB: `31/12/2023, 22:15 - Name: text`. */
export function androidGbChat(): string {
  return [
    "31/12/2023, 22:15 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.",
    "31/12/2023, 22:16 - Alice: Happy new year!",
    "multi-line: yes",
    "01/01/2024, 09:05 - Bob: IMG-20240101-WA0001.jpg (file attached)",
    "01/01/2024, 09:06 - Bob: <Media omitted>",
    "01/01/2024, 09:07 - Bob added Carol",
  ].join("\n");
}

/** Android, en-US: `12/31/23, 10:16 PM - Name: text`. */
export function androidUsChat(): string {
  return [
    `12/31/23, 10:16${NNBSP}PM - Alice: Happy new year!`,
    `1/1/24, 9:05${NNBSP}AM - Bob: <Media omitted>`,
    `1/13/24, 9:06${NNBSP}AM - Bob left`,
  ].join("\n");
}

/** `count` Android lines of one chat, a minute apart (for re-export, crash and size tests). */
export function androidChatLines(count: number, start = Date.UTC(2023, 0, 1, 8, 0)): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const t = new Date(start + i * 60_000);
    const p = (n: number) => String(n).padStart(2, "0");
    const stamp = `${p(t.getUTCDate())}/${p(t.getUTCMonth() + 1)}/${t.getUTCFullYear()}, ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}`;
    lines.push(`${stamp} - ${i % 2 ? "Alice" : "Bob"}: message ${i} about the weekend plans`);
  }
  return lines;
}

/** A calendar in Europe/Berlin: a recurring all-day event, a weekly meeting with TZID, its moved occurrence,
 *  a floating time, a folded description, attendees, and one malformed event (no UID). */
export function berlinCalendar(): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "X-WR-CALNAME:Family",
    "X-WR-TIMEZONE:Europe/Berlin",
    "BEGIN:VTIMEZONE",
    "TZID:Europe/Berlin",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "TZNAME:CEST",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "TZNAME:CET",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
    "BEGIN:VEVENT",
    "DTSTART;VALUE=DATE:20240315",
    "DTEND;VALUE=DATE:20240316",
    "RRULE:FREQ=YEARLY",
    "UID:birthday-1@example.com",
    "SUMMARY:Mum's birthday",
    "DESCRIPTION:Call her in the morning\\, and bring flowers. This line is long e",
    " nough to be folded by the exporter.",
    "DTSTAMP:20240101T000000Z",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Berlin:20240708T090000",
    "DTEND;TZID=Europe/Berlin:20240708T093000",
    "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10",
    "UID:standup@example.com",
    "SUMMARY:Standup",
    "ORGANIZER;CN=Ann:mailto:ann@example.com",
    "ATTENDEE;CN=Bob;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com",
    "ATTENDEE;CN=Cy;PARTSTAT=DECLINED:mailto:cy@example.com",
    "LOCATION:Room 1",
    "STATUS:CONFIRMED",
    "SEQUENCE:2",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "RECURRENCE-ID;TZID=Europe/Berlin:20240715T090000",
    "DTSTART;TZID=Europe/Berlin:20240715T100000",
    "DTEND;TZID=Europe/Berlin:20240715T103000",
    "UID:standup@example.com",
    "SUMMARY:Standup (moved)",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART:20240101T120000",
    "DURATION:PT1H",
    "UID:floating@example.com",
    "SUMMARY:Lunch",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART:20240101T120000Z",
    "SUMMARY:No uid",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

export function activityItems(product: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    header: product,
    title: `${product === "Search" ? "Searched for" : "Watched"} item ${i}`,
    titleUrl: `https://www.example.com/${product.toLowerCase()}/${i}`,
    subtitles: [{ name: "Channel", url: "https://www.example.com/channel" }],
    time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    products: [product],
    activityControls: [`${product} history`],
    ...(i === 0 ? { locationInfos: [{ name: "At this general area", source: "From your IP address" }] } : {}),
    ...(i === 1 ? { details: [{ name: "From Google Ads" }] } : {}),
  }));
}

export function browserHistory(count: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    favicon_url: "https://www.example.org/favicon.ico",
    page_transition: i % 2 ? "LINK" : "TYPED",
    title: `Page ${i}`,
    url: `https://www.example.org/page/${i}`,
    client_id: "abc123==",
    time_usec: 1_704_067_200_000_000 + i * 1_000_000,
  }));
  return JSON.stringify({ "Browser History": items }, null, 2);
}

/** The files of a Takeout with two My Activity products, Chrome history and a skipped part (Drive). */
export function takeoutFiles(): Record<string, string> {
  return {
    "Takeout/archive_browser.html": "<html></html>",
    "Takeout/My Activity/Search/MyActivity.json": JSON.stringify(activityItems("Search", 3), null, 2),
    "Takeout/My Activity/YouTube/MyActivity.json": JSON.stringify(activityItems("YouTube", 2), null, 2),
    "Takeout/My Activity/Maps/MyActivity.html": "<html></html>",
    "Takeout/Chrome/BrowserHistory.json": browserHistory(4),
    "Takeout/Drive/notes.txt": "hello",
    "Takeout/Drive/photo.jpg": "jpeg",
  };
}
