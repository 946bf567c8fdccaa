// One WhatsApp message from its lines: who sent it (or that it is a system line), what kind it is, its
// attachment, whether it was edited. Pure; every localised mark comes from whatsapp-locale.ts.
import { LRM, withoutMarks } from "./whatsapp-header.js";
import {
  deletedMark,
  editedMark,
  encryptionNotice,
  fileAttachedMark,
  type Language,
  mediaOmittedMark,
  typedOmittedMark,
} from "./whatsapp-locale.js";

export interface MessageParts {
  sender: string | null;
  text: string;
  /** message, system (group events, notices) or deleted. */
  kind: "message" | "system" | "deleted";
  edited: boolean;
  attachment: string | null;
  /** photo, video, audio, sticker, gif, document, contact, location or media. */
  attachmentKind: string | null;
  mediaOmitted: boolean;
  /** The language a localised mark on the line is written in. */
  language: Language | null;
}

const QUOTES = /["“”„«»「」『』]/g;

/**
 * `Name: text` → sender and text. iOS writes a system line as `Chat: <U+200E>text`, so a colon before
 * the mark splits first. A `: ` inside an open quotation is no sender's (`Bob changed the subject to
 * "Trip: Lisbon"`): quotation marks come in pairs, so an odd count before the colon means inside one.
 */
export function splitSender(rest: string): { sender: string | null; text: string; marked: boolean } {
  const mark = rest.indexOf(`: ${LRM}`);
  if (mark > 0) return { sender: rest.slice(0, mark), text: rest.slice(mark + 2), marked: true };
  const at = rest.indexOf(": ");
  if (at <= 0 || (rest.slice(0, at).match(QUOTES)?.length ?? 0) % 2 === 1) {
    return { sender: null, text: rest, marked: false };
  }
  return { sender: rest.slice(0, at), text: rest.slice(at + 2), marked: rest.startsWith(LRM, at + 2) };
}

/** `Name: text` as the first importer split it: its ids are kept, so the same split makes them. */
export function legacySplit(rest: string): { sender: string | null; text: string } {
  const line = withoutMarks(rest);
  const at = line.indexOf(": ");
  if (at <= 0) return { sender: null, text: line };
  return { sender: line.slice(0, at), text: line.slice(at + 2) };
}

const NO_ATTACHMENT = { attachment: null, attachmentKind: null, mediaOmitted: false, language: null };

/** An iOS attachment: `<attached: 00000012-PHOTO-….jpg>`, after a document's `Report.pdf • 3 pages`. */
const IOS_ATTACHED = /(?:^|\s)<[^<>:]{2,40}: ?([^<>]+\.[A-Za-z0-9]{1,5})>$/;
/** A shared location: `Location: https://maps.google.com/?q=…` in the listed languages. */
const LOCATION =
  /^(?:location|standort|position|localisation|ubicación|posizione|localização|locatie|sijainti|plats|местоположение|konum|位置|위치)\s?: https?:\/\/\S+$/i;

function attachmentOf(first: string): Omit<MessageParts, "sender" | "text" | "kind" | "edited"> {
  const line = first.trim();
  const ios = IOS_ATTACHED.exec(line);
  if (ios) return { ...NO_ATTACHMENT, attachment: ios[1]!, attachmentKind: kindOfFile(ios[1]!) };
  const android = fileAttachedMark(line);
  if (android) {
    return {
      attachment: android.file,
      attachmentKind: kindOfFile(android.file),
      mediaOmitted: false,
      language: android.language,
    };
  }
  const omitted = mediaOmittedMark(line);
  if (omitted) return { attachment: null, attachmentKind: "media", mediaOmitted: true, language: omitted };
  const typed = typedOmittedMark(line);
  if (typed) {
    return { attachment: null, attachmentKind: typed.kind, mediaOmitted: true, language: typed.language };
  }
  if (LOCATION.test(line)) return { ...NO_ATTACHMENT, attachmentKind: "location" };
  return NO_ATTACHMENT;
}

/** Build a message from its header's rest (marks kept) and its continuation lines (marks removed). */
export function messageParts(rest: string, more: readonly string[]): MessageParts {
  const split = splitSender(rest);
  let text = [withoutMarks(split.text), ...more].join("\n");
  const edited = editedMark(text);
  if (edited) text = edited.text;
  const attachment = attachmentOf(text.split("\n", 1)[0]!);
  const deleted = deletedMark(text);
  const language = edited?.language ?? deleted ?? attachment.language ?? encryptionNotice(text);
  const base = { text, edited: edited !== null, ...attachment, language };
  if (split.sender === null) return { ...base, sender: null, kind: "system" };
  const sender = cleanSender(split.sender);
  if (deleted) return { ...base, sender, kind: "deleted" };
  // iOS marks its notices and a few kinds of messages alike: a mark on a line that is no media, file,
  // location or deleted message is a notice under the chat's name, not a message from a person.
  const messageLevel = attachment.attachmentKind !== null || /^(missed )?(voice|video) call/i.test(text);
  if (split.marked && !messageLevel) return { ...base, sender: null, kind: "system" };
  return { ...base, sender, kind: "message" };
}

/** `~ Name` is a sender outside the phone's contacts shown by their own profile name: the `~` is no part of it. */
function cleanSender(sender: string): string {
  return withoutMarks(sender).replace(/^~\s*/, "").trim();
}

export function kindOfFile(name: string): string {
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
