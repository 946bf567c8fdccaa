// The mbox importer: streams an mbox file, parses each message's MIME with mailparser, yields `messages` records.
import { createHash } from "node:crypto";
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { openCountedInput } from "./file-input.js";
import { MBOX_MANIFEST } from "./mbox-manifest.js";
import { splitMbox } from "./mbox-split.js";
import type { ImportItem, ImportSource } from "./types.js";

/** Open an mbox file as an import source (streamed; bounded memory). */
export function openMboxSource(path: string): ImportSource {
  const input = openCountedInput(path);
  return {
    manifest: MBOX_MANIFEST,
    items: mboxItems(input.chunks),
    bytesRead: input.bytesRead,
    totalBytes: input.totalBytes,
  };
}

/** The records of an mbox byte stream, in file order; a message that cannot be parsed becomes an error item. */
export async function* mboxItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<ImportItem> {
  for await (const message of splitMbox(chunks)) {
    const position = `message ${message.index} (byte ${message.offset})`;
    if (message.index === 0) {
      yield {
        error: "text before the first 'From ' line is not a message",
        position: `byte ${message.offset}`,
      };
      continue;
    }
    try {
      const data = await parseMessage(message.raw);
      yield { stream: "messages", data, position };
    } catch (error) {
      yield { error: `unparseable message: ${(error as Error).message}`, position };
    }
  }
}

/** One RFC 5322 message (raw bytes) → a `messages` record. */
export async function parseMessage(raw: Buffer): Promise<Record<string, unknown>> {
  if (!looksLikeMessage(raw)) throw new Error("no header block found");
  const mail = await simpleParser(raw, {
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
    checksumAlgo: "sha256",
  });
  const messageId = cleanId(mail.messageId) ?? `sha256:${rawDigest(raw)}`;
  return {
    message_id: messageId,
    thread_id: threadId(mail, messageId),
    subject: mail.subject ?? "",
    from: mail.from ? (addressList(mail.from)[0] ?? null) : null,
    to: addressList(mail.to),
    cc: addressList(mail.cc),
    sent_at: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
    labels: gmailLabels(headerText(mail, "x-gmail-labels")),
    body: bodyText(mail),
    size_bytes: raw.length,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename ?? null,
      content_type: a.contentType,
      size_bytes: a.size,
      digest: `sha256:${a.checksum}`,
    })),
  };
}

/** A header block is a first line like `Name: value` (or an obsolete `Name : value`). */
function looksLikeMessage(raw: Buffer): boolean {
  const firstLine = raw.subarray(0, Math.min(raw.length, 1000)).toString("latin1").split(/\r?\n/, 1)[0] ?? "";
  return /^[!-9;-~]+\s*:/.test(firstLine);
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

function headerText(mail: ParsedMail, name: string): string | null {
  const value = mail.headers.get(name);
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : String(value);
}

function threadId(mail: ParsedMail, messageId: string): string {
  const gmailThread = headerText(mail, "x-gm-thrid")?.trim();
  if (gmailThread) return gmailThread;
  const references = typeof mail.references === "string" ? [mail.references] : (mail.references ?? []);
  const root = references.map((r) => r.trim()).find((r) => r.length > 0);
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

function bodyText(mail: ParsedMail): string {
  if (mail.text && mail.text.trim() !== "") return mail.text;
  // mailparser derives `text` from HTML-only mail; if that gave nothing, strip the tags ourselves.
  if (typeof mail.html === "string" && mail.html !== "") return htmlToPlain(mail.html);
  return mail.text ?? "";
}

function htmlToPlain(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, "")
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h[1-6])>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
