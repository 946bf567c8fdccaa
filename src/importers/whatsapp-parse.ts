// WhatsApp "export chat" lines: the message header of the iOS (`[31/12/2023, 22:15:42] Name: text`) and
// Android (`31/12/23, 22:15 - Name: text`) layouts in their locale variants, date order inference, and
// what a message's text says about attachments. Pure functions; whatsapp.ts does the I/O.
import type { WallTime } from "./wall-time.js";

export type DateOrder = "dmy" | "mdy" | "ymd";

/** A header line split into its parts; the date numbers are still in file order (a/b/c). */
export interface HeaderLine {
  layout: "ios" | "android";
  a: number;
  b: number;
  c: number;
  hour: number;
  minute: number;
  second: number;
  /** The rest after the timestamp: `Name: text`, or a system line. */
  rest: string;
}

// Real exports carry U+200E/U+200F marks (invisible) and U+202F / U+00A0 spaces before AM/PM.
const INVISIBLE = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const ODD_SPACES = /[\u202f\u00a0\u2009]/g;

const DATE = String.raw`(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})\.?`;
const TIME = String.raw`(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?: ?([AaPp])\.? ?[Mm]\.?)?`;
const IOS = new RegExp(String.raw`^\[${DATE},? ${TIME}\] (.*)$`);
const ANDROID = new RegExp(`^${DATE},? ${TIME} [-–] (.*)$`);

/** Remove the invisible direction marks and make the odd spaces plain, as the parser sees a line. */
export function cleanLine(line: string): { text: string; marked: boolean } {
  const marked = line.includes("\u200e");
  return { text: line.replace(INVISIBLE, "").replace(ODD_SPACES, " ").replace(/\r$/, ""), marked };
}

/** The header of a message line, or null for a continuation line. */
export function parseHeader(line: string): HeaderLine | null {
  const ios = IOS.exec(line);
  const match = ios ?? ANDROID.exec(line);
  if (!match) return null;
  let hour = Number(match[4]);
  const ampm = match[7]?.toLowerCase();
  if (ampm) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (ampm === "p" ? 12 : 0);
  }
  return {
    layout: ios ? "ios" : "android",
    a: Number(match[1]),
    b: Number(match[2]),
    c: Number(match[3]),
    hour,
    minute: Number(match[5]),
    second: match[6] === undefined ? 0 : Number(match[6]),
    rest: match[8]!,
  };
}

/** What one header says about the date order: a year first is ymd; a first number > 12 is dmy, a second mdy. */
export function dateOrderHint(h: HeaderLine): DateOrder | null {
  if (h.a > 31) return "ymd";
  if (h.a > 12 && h.b <= 12) return "dmy";
  if (h.b > 12 && h.a <= 12) return "mdy";
  return null;
}

/** The wall time of a header under a date order; null when the numbers make no date in that order. */
export function headerWallTime(h: HeaderLine, order: DateOrder): WallTime | null {
  const [year, month, day] =
    order === "ymd" ? [h.a, h.b, h.c] : order === "dmy" ? [h.c, h.b, h.a] : [h.c, h.a, h.b];
  if (year > 9999) return null;
  return {
    year: year < 100 ? 2000 + year : year,
    month,
    day,
    hour: h.hour,
    minute: h.minute,
    second: h.second,
  };
}

/** `Name: text` → sender and text; a line without `: ` is a system line (X added Y, X left, …). */
export function splitSender(rest: string): { sender: string | null; text: string } {
  const at = rest.indexOf(": ");
  if (at <= 0) return { sender: null, text: rest };
  return { sender: rest.slice(0, at), text: rest.slice(at + 2) };
}

export interface AttachmentInfo {
  /** The attached file's name when the export names it. */
  attachment: string | null;
  /** True when the export left the media out (`<Media omitted>`, `image omitted`). */
  mediaOmitted: boolean;
  /** photo, video, audio, sticker, gif, document, contact or media. */
  attachmentKind: string | null;
}

const NO_ATTACHMENT: AttachmentInfo = { attachment: null, mediaOmitted: false, attachmentKind: null };

/** Read the attachment markers of a message's first line (both layouts, English exports). */
export function attachmentOf(firstLine: string): AttachmentInfo {
  const line = firstLine.trim();
  let m = /^<attached: ([^>]+)>$/.exec(line);
  if (m) return { attachment: m[1]!, mediaOmitted: false, attachmentKind: kindOfFile(m[1]!) };
  m = /^(.+\.[A-Za-z0-9]{1,5}) \(file attached\)$/.exec(line);
  if (m) return { attachment: m[1]!, mediaOmitted: false, attachmentKind: kindOfFile(m[1]!) };
  if (/^<Media omitted>$/i.test(line))
    return { attachment: null, mediaOmitted: true, attachmentKind: "media" };
  m = /^(image|video|audio|sticker|GIF|document|Contact card) omitted$/i.exec(line);
  if (m) {
    const kind = m[1]!.toLowerCase().replace("contact card", "contact").replace("image", "photo");
    return { attachment: null, mediaOmitted: true, attachmentKind: kind };
  }
  return NO_ATTACHMENT;
}

function kindOfFile(name: string): string {
  const upper = name.toUpperCase();
  for (const [marker, kind] of [
    ["PHOTO", "photo"],
    ["IMG-", "photo"],
    ["VIDEO", "video"],
    ["VID-", "video"],
    ["AUDIO", "audio"],
    ["PTT-", "audio"],
    ["AUD-", "audio"],
    ["STICKER", "sticker"],
    ["STK-", "sticker"],
    ["GIF", "gif"],
    ["DOC-", "document"],
  ] as const) {
    if (upper.includes(marker)) return kind;
  }
  const ext = name.split(".").pop()?.toLowerCase() ?? "";
  if (["jpg", "jpeg", "png", "heic", "webp"].includes(ext)) return "photo";
  if (["mp4", "mov", "3gp"].includes(ext)) return "video";
  if (["opus", "m4a", "mp3", "aac", "ogg"].includes(ext)) return "audio";
  if (ext === "vcf") return "contact";
  return "document";
}

/** The chat's name from an export's file name: `WhatsApp Chat with Alice.txt`, `WhatsApp Chat - Family.zip`. */
export function chatNameFromFile(fileName: string): string {
  const stem = fileName.replace(/\.(txt|zip)$/i, "");
  const named = /^WhatsApp Chat (?:with|-|–) (.+)$/i.exec(stem);
  return (named ? named[1]! : stem).trim() || "WhatsApp chat";
}
