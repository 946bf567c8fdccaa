// The mbox importer: streams an mbox file, parses each message (the plain fast path, else mailparser),
// yields `messages` records.
import { simpleParser } from "mailparser";
import { openCountedInput } from "./file-input.js";
import { fieldsOfParsedMail, mailRecord } from "./mail-record.js";
import { fastMailFields } from "./mbox-fast.js";
import { MBOX_MANIFEST } from "./mbox-manifest.js";
import { splitMbox } from "./mbox-split.js";
import type { ImportItem, ImportSource } from "./types.js";
import { declareUndeclaredCharsets } from "./undeclared-charset.js";

export { gmailLabels } from "./mail-record.js";

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
  const fast = fastMailFields(raw);
  return fast ? mailRecord(raw, fast) : parseWithMailparser(raw);
}

/** The record as mailparser reads the message: every MIME shape; the reference the fast path is held to. */
export async function parseWithMailparser(raw: Buffer): Promise<Record<string, unknown>> {
  if (!looksLikeMessage(raw)) throw new Error("no header block found");
  const mail = await simpleParser(declareUndeclaredCharsets(raw), {
    skipTextToHtml: true,
    skipHtmlToText: true, // mail-record.ts converts HTML-only bodies itself (tables as tables)
    skipImageLinks: true,
    skipTextLinks: true,
    checksumAlgo: "sha256",
  });
  return mailRecord(raw, fieldsOfParsedMail(mail));
}

/** A header block is a first line like `Name: value` (or an obsolete `Name : value`). */
function looksLikeMessage(raw: Buffer): boolean {
  const firstLine = raw.subarray(0, Math.min(raw.length, 1000)).toString("latin1").split(/\r?\n/, 1)[0] ?? "";
  return /^[!-9;-~]+\s*:/.test(firstLine);
}
