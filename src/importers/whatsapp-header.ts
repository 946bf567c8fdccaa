// The timestamp that starts a WhatsApp export line, in every layout the apps write: iOS `[date, time] `
// and Android `date, time - `, each in the phone's locale: any of `/ . -` between the date's numbers
// (`12.3.2022`, `2024. 1. 5.`, `2024/01/05`), a word before the time (`à`, `klo`), 24-hour clocks with
// `:` or `.` and 12-hour clocks with their day-period markers before or after the time (`PM`, `p. m.`,
// `下午`, `오후`, `午後`). Pure: whatsapp.ts feeds it lines, whatsapp-date-order.ts reads what it finds.

/** How the line writes the time of day: what a date-order guess may lean on. */
export type ClockStyle =
  /** 24-hour clock. */
  | "24h"
  /** `AM`/`PM` in capitals without dots: the United States' form. */
  | "ampm"
  /** `am`, `a.m.`, `a. m.`: English outside the US, Spanish, … */
  | "ampm-other"
  /** 上午/下午, 오전/오후, 午前/午後 before the time: Chinese, Korean, Japanese. */
  | "cjk";

/** A header line split into its parts; the date's numbers are still in file order (a/b/c). */
export interface HeaderLine {
  layout: "ios" | "android";
  a: number;
  b: number;
  c: number;
  /** Digits written for each of a, b, c (a 4-digit number is a year). */
  digits: [number, number, number];
  /** The character between the date's numbers. */
  separator: string;
  hour: number;
  minute: number;
  second: number;
  clock: ClockStyle;
  /** The timestamp as written (marks removed): the same text whatever date order it is read in. */
  stamp: string;
  /** The rest after the timestamp: `Name: text` or a system line; U+200E marks are kept here. */
  rest: string;
}

// Real exports carry invisible direction marks and odd spaces (U+202F before AM/PM, U+00A0). U+200E is
// kept through header parsing: iOS puts it before a system line's text, which is how those are told
// apart from messages (whatsapp-message.ts); every other mark goes.
const INVISIBLE = /[\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const ODD_SPACES = /[\u202f\u00a0\u2009]/g;
export const LRM = "\u200e";

/** Day-period markers; the morning ones keep the hour, the others add 12 (12 itself stays or becomes 0). */
const MORNING = ["上午", "午前", "오전", "凌晨", "早上", "午夜", "ص"];
const AFTERNOON = ["下午", "午後", "오후", "中午", "晚上", "م"];
const LATIN_MARK = String.raw`[AaPp]\.? ?[Mm]\.?`;
const MARK = `(?:${LATIN_MARK}|${[...MORNING, ...AFTERNOON].join("|")})`;

const DATE = String.raw`(\d{1,4})(?<sep>[./-]) ?(\d{1,2})\k<sep> ?(\d{1,4})\.?`;
// Between date and time: a comma and/or a space, or the locale's word for "at" (fr `à`, fi `klo`, pt `às`).
const JOIN = String.raw`(?:, ?| )(?:(?:à|klo|kl\.|às|um|alle) )?`;
const TIME = String.raw`(?:(${MARK}) ?)?(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?: ?(${MARK}))?`;
const IOS = new RegExp(String.raw`^\u200e*\[(${DATE}${JOIN}${TIME})\] (.*)$`);
const ANDROID = new RegExp(String.raw`^\u200e*(${DATE}${JOIN}${TIME}) [-–] (.*)$`);

/** A line as the parser sees it: invisible marks (but U+200E) removed, odd spaces plain, no CR. */
export function cleanLine(line: string): string {
  return line.replace(INVISIBLE, "").replace(ODD_SPACES, " ").replace(/\r$/, "");
}

/** Text without the U+200E marks (what a record stores). */
export function withoutMarks(text: string): string {
  return text.replaceAll(LRM, "");
}

/** The header of a message line, or null for a continuation line. */
export function parseHeader(line: string): HeaderLine | null {
  const ios = IOS.exec(line);
  const match = ios ?? ANDROID.exec(line);
  if (!match) return null;
  const [, stamp, a, separator, b, c, before, hourText, minute, second, after] = match;
  const marker = before ?? after;
  let hour = Number(hourText);
  let clock: ClockStyle = "24h";
  if (marker !== undefined) {
    // A 12-hour clock writes 1–12 (Japanese also 0–11); 12 AM is midnight, 12 PM noon.
    if (hour > 12) return null;
    const latin = new RegExp(`^${LATIN_MARK}$`).test(marker);
    const afternoon = latin ? /^p/i.test(marker) : AFTERNOON.includes(marker);
    hour = (hour % 12) + (afternoon ? 12 : 0);
    clock = !latin ? "cjk" : /^[AP]M$/.test(marker) ? "ampm" : "ampm-other";
  }
  if (hour > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return null;
  return {
    layout: ios ? "ios" : "android",
    a: Number(a),
    b: Number(b),
    c: Number(c),
    digits: [a!.length, b!.length, c!.length],
    separator: separator!,
    hour,
    minute: Number(minute),
    second: second === undefined ? 0 : Number(second),
    clock,
    stamp: stamp!,
    rest: match[11]!,
  };
}
