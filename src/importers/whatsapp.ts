// The WhatsApp importer: an exported chat (.txt, or the export zip holding it and the media) → `messages`.
// Two streamed passes over the text: the first only until a date decides the day/month order, the second
// builds messages (a header line starts one, the lines after it continue it).
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { PdppError } from "../core/errors.js";
import { countChunks, openCountedInput } from "./file-input.js";
import type { ImportFormat } from "./import-format.js";
import { textLines } from "./text-lines.js";
import type { ImportItem, ImportSource } from "./types.js";
import { checkTimeZone, isValidWallTime, machineTimeZone, WallClock, wallIso } from "./wall-time.js";
import { WHATSAPP_MANIFEST } from "./whatsapp-manifest.js";
import {
  attachmentOf,
  chatNameFromFile,
  cleanLine,
  type DateOrder,
  dateOrderHint,
  headerWallTime,
  parseHeader,
  splitSender,
} from "./whatsapp-parse.js";
import { isZipFile, listZip, openZipMember } from "./zip-file.js";

/** Without a deciding date (no day > 12 anywhere) and no --date-order: day first, as most locales write. */
export const DEFAULT_DATE_ORDER: DateOrder = "dmy";

export interface WhatsappOptions {
  dateOrder?: string;
  timeZone?: string;
  chat?: string;
}

interface Input {
  open(): Promise<{ chunks: AsyncIterable<Buffer>; bytesRead(): number }>;
  totalBytes: number;
  chat: string;
  /** Base names of the zip's other members (the media), null for a bare .txt. */
  media: Set<string> | null;
}

export async function openWhatsappSource(path: string, options: WhatsappOptions = {}): Promise<ImportSource> {
  const zone = checkTimeZone(options.timeZone ?? machineTimeZone());
  let order: DateOrder | undefined;
  if (options.dateOrder !== undefined) {
    if (!["dmy", "mdy", "ymd"].includes(options.dateOrder)) {
      throw new PdppError("invalid_request", "--date-order must be dmy (31/12/23), mdy (12/31/23) or ymd.");
    }
    order = options.dateOrder as DateOrder;
  }
  const input = await openInput(path, options.chat);
  order ??= (await inferDateOrder(input)) ?? DEFAULT_DATE_ORDER;
  let current: { bytesRead(): number } = { bytesRead: () => 0 };
  const clock = new WallClock(zone);
  async function* items(): AsyncGenerator<ImportItem> {
    const opened = await input.open();
    current = opened;
    yield* whatsappItems(opened.chunks, { chat: input.chat, order: order!, clock, media: input.media });
  }
  return {
    manifest: WHATSAPP_MANIFEST,
    items: items(),
    bytesRead: () => current.bytesRead(),
    totalBytes: input.totalBytes,
  };
}

async function openInput(path: string, chat: string | undefined): Promise<Input> {
  if (!(await isZipFile(path))) {
    const total = openCountedInput(path).totalBytes;
    return {
      open: async () => openCountedInput(path),
      totalBytes: total,
      chat: chat ?? chatNameFromFile(basename(path)),
      media: null,
    };
  }
  const members = await listZip(path);
  const texts = members.filter((m) => m.name.toLowerCase().endsWith(".txt"));
  const text =
    texts.find((m) => basename(m.name) === "_chat.txt") ??
    texts.find((m) => /^WhatsApp Chat/i.test(basename(m.name))) ??
    (texts.length === 1 ? texts[0] : undefined);
  if (!text) {
    throw new PdppError(
      "invalid_request",
      `the zip has no WhatsApp chat (_chat.txt or "WhatsApp Chat with ….txt"): pass the chat export zip or its .txt.`,
    );
  }
  const textName = basename(text.name);
  return {
    open: async () => countChunks((await openZipMember(path, text.name)) as AsyncIterable<Buffer>),
    totalBytes: text.uncompressedSize,
    // iOS names the text `_chat.txt`: the chat's name is then only in the zip's name.
    chat: chat ?? chatNameFromFile(textName === "_chat.txt" ? basename(path) : textName),
    media: new Set(members.filter((m) => m !== text).map((m) => basename(m.name))),
  };
}

/** The first date whose numbers decide the order (a day > 12); null when none in the whole file does. */
async function inferDateOrder(input: Input): Promise<DateOrder | null> {
  const { chunks } = await input.open();
  const iterator = textLines(chunks)[Symbol.asyncIterator]();
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const header = parseHeader(cleanLine(next.value.text).text);
      const hint = header && dateOrderHint(header);
      if (hint) return hint;
    }
    return null;
  } finally {
    await iterator.return?.(undefined); // closes the file or zip stream early
  }
}

interface Pending {
  line: number;
  header: ReturnType<typeof parseHeader> & {};
  /** The text after `Name: ` started with U+200E: iOS marks its system lines so. */
  marked: boolean;
  lines: string[];
}

export async function* whatsappItems(
  chunks: AsyncIterable<Buffer>,
  options: { chat: string; order: DateOrder; clock: WallClock; media: Set<string> | null },
): AsyncGenerator<ImportItem> {
  let pending: Pending | null = null;
  let orphanReported = false;
  let lastWall = "";
  const seen = new Map<string, number>(); // identical messages within one timestamp → ordinal

  const finish = (p: Pending): ImportItem => {
    const position = `line ${p.line}`;
    const wall = headerWallTime(p.header, options.order);
    if (!wall || !isValidWallTime(wall)) {
      return {
        error: `not a date in ${options.order} order: ${p.header.a}/${p.header.b}/${p.header.c}`,
        position,
      };
    }
    const { sender, text: first } = splitSender(p.lines[0]!);
    const text = [first, ...p.lines.slice(1)].join("\n");
    const attachment = attachmentOf(first);
    const isAttachment = attachment.attachment !== null || attachment.mediaOmitted;
    const kind = sender === null || (p.marked && !isAttachment) ? "system" : "message";
    const local = wallIso(wall);
    if (local !== lastWall) {
      seen.clear();
      lastWall = local;
    }
    const key = `${options.chat}\u0000${local}\u0000${sender ?? ""}\u0000${text}`;
    const ordinal = seen.get(key) ?? 0;
    seen.set(key, ordinal + 1);
    const messageId = createHash("sha256").update(`${key}\u0000${ordinal}`).digest("hex").slice(0, 32);
    return {
      stream: "messages",
      position,
      data: {
        message_id: messageId,
        chat: options.chat,
        sender: kind === "system" ? null : sender,
        text,
        sent_at: options.clock.toIso(wall),
        local_time: local,
        kind,
        attachment: attachment.attachment,
        attachment_kind: attachment.attachmentKind,
        media_omitted: attachment.mediaOmitted,
        attachment_in_export:
          options.media && attachment.attachment !== null ? options.media.has(attachment.attachment) : null,
      },
    };
  };

  for await (const { text: raw, line } of textLines(chunks)) {
    const { text } = cleanLine(raw);
    const header = parseHeader(text);
    if (header) {
      if (pending) yield finish(pending);
      pending = { line, header, marked: /: \u200e/.test(raw), lines: [header.rest] };
      continue;
    }
    if (pending) pending.lines.push(text);
    else if (text.trim() !== "" && !orphanReported) {
      // Only the first such line is reported: a wrong file would otherwise reject every line.
      orphanReported = true;
      yield {
        error: "text before the first message line (not a WhatsApp chat export line)",
        position: `line ${line}`,
      };
    }
  }
  if (pending) yield finish(pending);
}

export const WHATSAPP_FORMAT: ImportFormat = {
  name: "whatsapp",
  description:
    "import a WhatsApp chat export (the .txt or the zip with media, iOS or Android) into `messages`",
  flags: [
    {
      flags: "--date-order <order>",
      description: `day/month order of the dates: dmy or mdy (default: decided by a day > 12 in the file, else ${DEFAULT_DATE_ORDER})`,
    },
    {
      flags: "--time-zone <zone>",
      description: "IANA zone the export's wall-clock times are in (default: this machine's zone)",
    },
    { flags: "--chat <name>", description: "the chat's name (default: from the file name)" },
  ],
  // One connection for all chats: each record names its chat, so searches span every exported chat.
  defaultLabel: () => "WhatsApp",
  open: (path, options) => openWhatsappSource(path, options.flags as WhatsappOptions),
  detect: async (probe) => {
    const text =
      probe.kind === "file"
        ? probe.headText
        : ((await probe.head("_chat.txt")) ??
          (await headOfChatText(probe.entries, (name) => probe.head(name))));
    if (text === null) return 0;
    const lines = text
      .split("\n")
      .slice(0, 50)
      .filter((l) => l.trim() !== "");
    const headers = lines.filter((l) => parseHeader(cleanLine(l).text)).length;
    if (headers === 0 || !parseHeader(cleanLine(lines[0]!).text)) return 0;
    return headers / lines.length >= 0.3 ? 0.9 : 0.4;
  },
};

async function headOfChatText(
  entries: readonly string[],
  head: (name: string) => Promise<string | null>,
): Promise<string | null> {
  const name = entries.find((e) => /(^|\/)WhatsApp Chat[^/]*\.txt$/i.test(e));
  return name === undefined ? null : head(name.split("/").pop()!);
}
