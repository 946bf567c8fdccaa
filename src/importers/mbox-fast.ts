// The mbox fast path: a single-part text/plain message (7bit/8bit/quoted-printable, UTF-8/ASCII/Latin-1)
// is read without mailparser's stream machinery. It answers exactly what mailparser would (an equivalence
// test holds it to that); any message outside that shape answers null and goes to mailparser.

import { isUtf8 } from "node:buffer";
import { parseAddressHeader } from "mailparser";
import type { MailFields } from "./mail-record.js";
import { decodeCp1252, decodeQuotedPrintable, decodeWords } from "./mime-decode.js";

/** Beyond this the header block is unusual enough to leave to mailparser (its limits apply there). */
const MAX_HEADER_BYTES = 64 * 1024;
/** A header name as mailsplit keys it; anything odder (spaces, a missing colon) falls back. */
const HEADER_NAME = /^[!-9;-~]+$/;
/** The only Content-Type we read ourselves: text/plain with at most a charset parameter. */
const PLAIN_TYPE = /^text\/plain\s*(?:;\s*charset\s*=\s*(?:"([A-Za-z0-9_.:-]+)"|([A-Za-z0-9_.:-]+))\s*)?;?$/i;
const UTF8_NAMES = new Set(["ascii", "usascii", "utf8"]);
const CP1252_NAMES = new Set(["iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252"]);

interface Header {
  key: string;
  /** libmime.decodeHeader: folding replaced by one space, trimmed. */
  value: string;
}

/** The header lines of the block before the first empty line, and where the body starts; null to fall back. */
function splitHeaders(raw: Buffer): { headers: Header[]; bodyStart: number } | null {
  let lineStart = 0;
  const lines: string[] = [];
  for (;;) {
    const lf = raw.indexOf(0x0a, lineStart);
    if (lf < 0 || lf > MAX_HEADER_BYTES) return null; // no end of the header block in sight
    const end = lf > lineStart && raw[lf - 1] === 0x0d ? lf - 1 : lf;
    if (end === lineStart) {
      return lines.length === 0 ? null : { headers: unfold(lines), bodyStart: lf + 1 };
    }
    for (let i = lineStart; i < end; i++) {
      const b = raw[i]!;
      // 8-bit or control bytes in headers take mailsplit's binary/UTF-8 round trip: leave them to it.
      if (b >= 0x80 || (b < 0x20 && b !== 0x09)) return null;
    }
    lines.push(raw.toString("latin1", lineStart, end));
    lineStart = lf + 1;
  }
}

/** Header lines → {key, value}; throws FallBack for a shape mailsplit would read its own way. */
function unfold(lines: string[]): Header[] {
  const headers: Header[] = [];
  let current: string | null = null;
  const push = () => {
    if (current === null) return;
    const colon = current.indexOf(":");
    const key = current.slice(0, colon);
    headers.push({ key: key.toLowerCase(), value: current.slice(colon + 1).trim() });
  };
  for (const line of lines) {
    const first = line.charCodeAt(0);
    if (first === 0x20 || first === 0x09) {
      if (current === null) throw new FallBack();
      // libmime.decodeHeader: a line break and the blanks after it become one space.
      current += ` ${line.replace(/^[ \t]*/, "")}`;
      continue;
    }
    push();
    const colon = line.indexOf(":");
    if (colon <= 0 || !HEADER_NAME.test(line.slice(0, colon))) throw new FallBack();
    current = line;
  }
  push();
  return headers;
}

/** Control flow only (caught in fastMailFields): "this message is mailparser's", never surfaced to anyone. */
class FallBack extends Error {}

/** mailparser keeps a header's first non-empty value for single-valued keys. */
function first(headers: Header[], key: string): string | undefined {
  // (only for values that stay non-empty once decoded: ids, Content-Type)
  for (const h of headers) if (h.key === key && h.value !== "") return h.value;
  return undefined;
}

function all(headers: Header[], key: string): string[] {
  const out: string[] = [];
  for (const h of headers) if (h.key === key) out.push(h.value);
  return out;
}

function count(headers: Header[], key: string): number {
  let n = 0;
  for (const h of headers) if (h.key === key) n++;
  return n;
}

/** mailparser's ensureMessageIDFormat. */
function messageIdFormat(value: string): string | undefined {
  if (!value.length) return undefined;
  let out = value;
  if (out.charAt(0) !== "<") out = `<${out}`;
  if (out.charAt(out.length - 1) !== ">") out += ">";
  return out;
}

function noWords(value: string): string {
  if (value.includes("=?")) throw new FallBack();
  return value;
}

/** The body text of a plain part, as mailparser's text: charset-decoded, CRLF → LF. */
function bodyText(body: Buffer, charset: string | undefined, encoding: string): string | null {
  const bytes = encoding === "quoted-printable" ? decodeQuotedPrintable(body) : body;
  let text: string | null;
  if (charset === undefined) {
    // Undeclared: valid UTF-8 stays UTF-8, else windows-1252 (as undeclared-charset.ts tells mailparser).
    text = isUtf8(bytes) ? bytes.toString("utf8") : decodeCp1252(bytes);
  } else if (UTF8_NAMES.has(charset.toLowerCase().replace(/[^a-z0-9]+/g, ""))) {
    text = bytes.toString("utf8");
  } else if (CP1252_NAMES.has(charset.toLowerCase())) {
    text = decodeCp1252(bytes);
  } else {
    return null;
  }
  return text?.replace(/\r?\n/g, "\n") ?? null;
}

/** The fields of a plain single-part message, or null when it must go through mailparser. */
export function fastMailFields(raw: Buffer): MailFields | null {
  try {
    const split = splitHeaders(raw);
    if (!split) return null;
    const { headers, bodyStart } = split;
    if (count(headers, "content-disposition") > 0 || count(headers, "content-type") > 1) return null;
    const type = first(headers, "content-type");
    let charset: string | undefined;
    if (type !== undefined) {
      const match = PLAIN_TYPE.exec(type);
      if (!match) return null;
      charset = match[1] ?? match[2];
    } else if (count(headers, "content-type") > 0) {
      return null; // an empty Content-Type: mailsplit's default, not ours to guess
    }
    const cte = all(headers, "content-transfer-encoding")[0]?.toLowerCase() ?? "";
    // mailsplit strips comments from the encoding; a bare token is all we read.
    if (!["", "7bit", "8bit", "binary", "quoted-printable"].includes(cte)) return null;
    const text = bodyText(raw.subarray(bodyStart), charset, cte);
    if (text === null) return null;

    // A Date object is always "set", so the first Date header wins even when it is empty.
    const dateValue = all(headers, "date")[0];
    let date: Date | undefined;
    if (dateValue !== undefined) {
      date = new Date(dateValue);
      // mailparser substitutes "now" for an unreadable date; not reproducible, so it decides.
      if (Number.isNaN(date.getTime())) return null;
    }
    const subject = firstSubject(headers);
    if (subject === null) return null;
    const messageIdValue = first(headers, "message-id");
    const inReplyToValue = first(headers, "in-reply-to");
    const references = all(headers, "references").flatMap((v) =>
      noWords(v)
        .split(/\s+/)
        .flatMap((r) => messageIdFormat(r) ?? []),
    );
    const fromValues = all(headers, "from");
    return {
      messageId: messageIdValue === undefined ? undefined : messageIdFormat(noWords(messageIdValue)),
      inReplyTo: inReplyToValue === undefined ? undefined : messageIdFormat(noWords(inReplyToValue)),
      references,
      subject,
      from: fromValues.length > 0 ? parseAddressHeader(fromValues[0]!) : undefined,
      to: parseAddressHeader(all(headers, "to")),
      cc: parseAddressHeader(all(headers, "cc")),
      date,
      gmailThreadId: joined(headers, "x-gm-thrid"),
      gmailLabels: joined(headers, "x-gmail-labels"),
      text: text === "" ? undefined : text,
      html: undefined,
      attachments: [],
    };
  } catch (error) {
    if (error instanceof FallBack) return null;
    throw error;
  }
}

/** The first Subject that decodes to something non-empty (mailparser skips empty values), null to fall back. */
function firstSubject(headers: Header[]): string | undefined | null {
  for (const value of all(headers, "subject")) {
    const decoded = decodeWords(value);
    if (decoded === null) return null;
    if (decoded) return decoded;
  }
  return undefined;
}

/** A generic header as mailparser's headers.get(): several non-empty values come out comma-joined. */
function joined(headers: Header[], key: string): string | null {
  const values = all(headers, key).filter((v) => v !== "");
  return values.length === 0 ? null : values.join(",");
}
