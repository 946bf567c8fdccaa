// One parsed mail message → the `messages` record. Shared by the mailparser path and the fast path, which
// both reduce a message to MailFields first, so the record shape has a single definition.
import { createHash } from "node:crypto";
import { htmlToText } from "html-to-text";
import type { AddressObject, ParsedMail } from "mailparser";

/** The parts of a parsed message the record is built from (mailparser's values, as it gives them). */
export interface MailFields {
  messageId: string | undefined;
  inReplyTo: string | undefined;
  /** References ids in header order (mailparser's `references`, always as a list). */
  references: string[];
  subject: string | undefined;
  from: AddressObject | undefined;
  to: AddressObject | AddressObject[] | undefined;
  cc: AddressObject | AddressObject[] | undefined;
  date: Date | undefined;
  /** The X-GM-THRID / X-Gmail-Labels header text (several headers comma-joined), or null. */
  gmailThreadId: string | null;
  gmailLabels: string | null;
  text: string | undefined;
  html: string | false | undefined;
  attachments: { filename: string | null; content_type: string; size_bytes: number; digest: string }[];
}

/** The MailFields of a mailparser result. */
export function fieldsOfParsedMail(mail: ParsedMail): MailFields {
  const references = typeof mail.references === "string" ? [mail.references] : (mail.references ?? []);
  return {
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references,
    subject: mail.subject,
    from: mail.from,
    to: mail.to,
    cc: mail.cc,
    date: readableDate(mail),
    gmailThreadId: headerText(mail, "x-gm-thrid"),
    gmailLabels: headerText(mail, "x-gmail-labels"),
    text: mail.text,
    html: mail.html,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename ?? null,
      content_type: a.contentType,
      size_bytes: a.size,
      digest: `sha256:${a.checksum}`,
    })),
  };
}

/**
 * mailparser's date, unless it made it up: for a Date header it cannot read it substitutes the current
 * time, which would give the message a new sent_at (and a new version) on every import. Such a message
 * has no sent_at instead. mailparser reads the first Date header with `new Date(value)`, as here.
 */
function readableDate(mail: ParsedMail): Date | undefined {
  if (!mail.date) return undefined;
  const line = mail.headerLines.find((h) => h.key === "date")?.line;
  if (line === undefined) return mail.date;
  const value = line
    .replace(/^[^:]*:/, "")
    .replace(/\r?\n[ \t]+/g, " ")
    .trim();
  // Both tests: a header this plain reading cannot parse (mailparser may have decoded encoded words
  // first) whose date is also "now" is the substitute.
  const substituted =
    Number.isNaN(new Date(value).getTime()) && Math.abs(mail.date.getTime() - Date.now()) < 600_000;
  return substituted ? undefined : mail.date;
}

function headerText(mail: ParsedMail, name: string): string | null {
  const value = mail.headers.get(name);
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : String(value);
}

/** The `messages` record of one raw message and its parsed fields. */
export function mailRecord(raw: Buffer, mail: MailFields): Record<string, unknown> {
  const messageId = cleanId(mail.messageId) ?? `sha256:${rawDigest(raw)}`;
  return {
    message_id: messageId,
    thread_id: threadId(mail, messageId),
    subject: mail.subject ?? "",
    from: mail.from ? (addressList(mail.from)[0] ?? null) : null,
    to: addressList(mail.to),
    cc: addressList(mail.cc),
    sent_at: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
    labels: gmailLabels(mail.gmailLabels),
    body: bodyText(mail),
    size_bytes: raw.length,
    attachments: mail.attachments,
  };
}

function rawDigest(raw: Buffer): string {
  // Trailing newlines depend on where the message sat in the file; they must not change its identity.
  let end = raw.length;
  while (end > 0 && (raw[end - 1] === 0x0a || raw[end - 1] === 0x0d)) end--;
  return createHash("sha256").update(raw.subarray(0, end)).digest("hex");
}

function cleanId(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function threadId(mail: MailFields, messageId: string): string {
  const gmailThread = mail.gmailThreadId?.trim();
  if (gmailThread) return gmailThread;
  const root = mail.references.map((r) => r.trim()).find((r) => r.length > 0);
  if (root) return root;
  const inReplyTo = cleanId(mail.inReplyTo);
  return inReplyTo ?? messageId;
}

function addressList(value: AddressObject | AddressObject[] | undefined): string[] {
  if (!value) return [];
  const objects = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const object of objects) {
    for (const entry of object.value) {
      const members = entry.group && entry.group.length > 0 ? entry.group : [entry];
      for (const member of members) {
        const address = member.address?.trim() ?? "";
        const name = member.name?.trim() ?? "";
        if (name && address) out.push(`${name} <${address}>`);
        else if (address || name) out.push(address || name);
      }
    }
  }
  return out;
}

/** X-Gmail-Labels: comma-separated, a label containing a comma is double-quoted. */
export function gmailLabels(header: string | null): string[] {
  if (!header) return [];
  const labels: string[] = [];
  for (const match of header.matchAll(/\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*))\s*(?:,|$)/g)) {
    const label = (match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? "")).trim();
    if (label) labels.push(label);
    if (match[0] === "") break;
  }
  return labels;
}

function bodyText(mail: MailFields): string {
  if (mail.text && mail.text.trim() !== "") return mail.text;
  // HTML-only mail: mailparser is asked not to convert (its conversion runs table cells together,
  // "Hosting$1,000"); here tables keep their cells apart.
  if (typeof mail.html === "string" && mail.html !== "") return htmlToPlain(mail.html);
  return mail.text ?? "";
}

/** Beyond these, HTML is not converted (mailparser's own limits): the body stays the tag-stripped text. */
const MAX_HTML_CHARS = 10 * 1024 * 1024;
const MAX_HTML_DEPTH = 200;

/** Readable text of an HTML body: blocks on their own lines, table cells in aligned columns. */
export function htmlToPlain(html: string): string {
  if (html.length > MAX_HTML_CHARS) return html.replace(/<[^>]+>/g, " ").trim();
  return htmlToText(html, {
    limits: { maxDepth: MAX_HTML_DEPTH },
    selectors: [{ selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } }],
  }).trim();
}
