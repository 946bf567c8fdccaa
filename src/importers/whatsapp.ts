// The WhatsApp importer: an exported chat (.txt, or the export zip holding it and the media) → `messages`.
// Two streamed passes over the text: the first gathers what the dates say about their order (until they
// decide it), the second builds the messages (whatsapp-items.ts); the summary says which order and zone
// were assumed and how to override them.
import { basename, dirname } from "node:path";
import { PdppError } from "../core/errors.js";
import { countChunks, openCountedInput } from "./file-input.js";
import type { ImportFormat } from "./import-format.js";
import type { ImportSource } from "./types.js";
import { checkTimeZone, machineTimeZone, WallClock } from "./wall-time.js";
import {
  DATE_ORDERS,
  type DateOrder,
  type DateOrderDecision,
  decideDateOrder,
  ORDER_NAMES,
} from "./whatsapp-date-order.js";
import { cleanLine, parseHeader } from "./whatsapp-header.js";
import { scanDates, whatsappItems } from "./whatsapp-items.js";
import { chatFromFileName, type Language } from "./whatsapp-locale.js";
import { WHATSAPP_MANIFEST } from "./whatsapp-manifest.js";
import { isZipFile, listZip, openZipMember } from "./zip-file.js";

export interface WhatsappOptions {
  dateOrder?: string;
  timeZone?: string;
  chat?: string;
}

interface Input {
  open(): Promise<{ chunks: AsyncIterable<Buffer>; bytesRead(): number }>;
  totalBytes: number;
  chat: string;
  /** The chat's name as the first importer derived it (part of every message id). */
  chatKey: string;
  /** The language the file name is in (`WhatsApp Chat mit …` is German). */
  language: Language | null;
  /** Base names of the zip's other members (the media), null for a bare .txt. */
  media: Set<string> | null;
}

export async function openWhatsappSource(path: string, options: WhatsappOptions = {}): Promise<ImportSource> {
  const zoneGiven = options.timeZone !== undefined;
  const zone = checkTimeZone(options.timeZone ?? machineTimeZone());
  if (options.dateOrder !== undefined && !DATE_ORDERS.includes(options.dateOrder as DateOrder)) {
    throw new PdppError(
      "invalid_request",
      "--date-order must be dmy (31/12/23), mdy (12/31/23) or ymd (2023/12/31).",
    );
  }
  const input = await openInput(path, options.chat);
  const scan = await scanDates((await input.open()).chunks);
  const decision = decide(scan, input.language, options.dateOrder as DateOrder | undefined);
  let current: { bytesRead(): number } = { bytesRead: () => 0 };
  const clock = new WallClock(zone);
  async function* items() {
    const opened = await input.open();
    current = opened;
    yield* whatsappItems(opened.chunks, {
      chat: input.chat,
      chatKey: input.chatKey,
      order: decision.order,
      alternatives: decision.alternatives,
      clock,
      media: input.media,
    });
  }
  return {
    manifest: WHATSAPP_MANIFEST,
    items: items(),
    bytesRead: () => current.bytesRead(),
    totalBytes: input.totalBytes,
    notes: () => [
      dateOrderNote(decision),
      `times read as ${zone} wall-clock time${zoneGiven ? " (--time-zone)" : " (this machine's zone; another: --time-zone <IANA zone>)"}`,
    ],
  };
}

function decide(
  scan: Awaited<ReturnType<typeof scanDates>>,
  fileLanguage: Language | null,
  given: DateOrder | undefined,
): DateOrderDecision {
  const { evidence } = scan;
  if (given === undefined) return decideDateOrder(evidence, fileLanguage ?? scan.language);
  if (!evidence.possible.has(given)) {
    const at = evidence.ruledOutBy.get(given)!;
    throw new PdppError(
      "invalid_request",
      `--date-order ${given} does not fit the file: line ${at.line} (${at.stamp}) is no date ${ORDER_NAMES[given]}; leave --date-order out to let the dates decide.`,
    );
  }
  return {
    order: given,
    certain: true,
    reason: "given by --date-order",
    alternatives: DATE_ORDERS.filter((o) => o !== given && evidence.possible.has(o)),
  };
}

function dateOrderNote(decision: DateOrderDecision): string {
  const head = `dates read as ${ORDER_NAMES[decision.order]} (--date-order ${decision.order}), ${decision.reason}`;
  if (decision.certain || decision.alternatives.length === 0) return head;
  const other = decision.alternatives[0]!;
  return `${head}. If that is wrong, import again with --date-order ${other} (${ORDER_NAMES[other]}): the messages are corrected, not doubled`;
}

/** The chat's name: --chat, else the export's (localised) file name, else the file's stem. */
function chatNames(
  fileName: string,
  chat: string | undefined,
  path: string,
): Omit<Input, "open" | "totalBytes" | "media"> {
  const named = chatFromFileName(fileName);
  // The first importer's name for a chat (an English file name's, or the stem) keys the message ids.
  const legacy = /^WhatsApp Chat (?:with|-|–) (.+)$/i.exec(fileName.replace(/\.(txt|zip)$/i, ""));
  const chatKey =
    chat ?? ((legacy ? legacy[1]! : fileName.replace(/\.(txt|zip)$/i, "")).trim() || "WhatsApp chat");
  if (chat !== undefined) return { chat, chatKey, language: named?.language ?? null };
  if (named) return { chat: named.chat, chatKey, language: named.language };
  if (fileName === "_chat.txt") {
    // iOS names every chat's text `_chat.txt`: the name is the zip's, or the folder it was unzipped to.
    const folder = chatFromFileName(`${basename(dirname(path))}.zip`);
    if (folder) return { chat: folder.chat, chatKey, language: folder.language };
    throw new PdppError(
      "invalid_request",
      `${path} does not say which chat it is (iOS names every chat _chat.txt): pass --chat "<name>", or import the export zip.`,
    );
  }
  return { chat: chatKey, chatKey, language: null };
}

async function openInput(path: string, chat: string | undefined): Promise<Input> {
  if (!(await isZipFile(path))) {
    const total = openCountedInput(path).totalBytes;
    return {
      open: async () => openCountedInput(path),
      totalBytes: total,
      ...chatNames(basename(path), chat, path),
      media: null,
    };
  }
  const members = await listZip(path);
  const texts = members.filter((m) => m.name.toLowerCase().endsWith(".txt"));
  const text =
    texts.find((m) => basename(m.name) === "_chat.txt") ??
    texts.find((m) => chatFromFileName(basename(m.name)) !== null) ??
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
    ...chatNames(textName === "_chat.txt" ? basename(path) : textName, chat, path),
    media: new Set(members.filter((m) => m !== text).map((m) => basename(m.name))),
  };
}

export const WHATSAPP_FORMAT: ImportFormat = {
  name: "whatsapp",
  description:
    "import a WhatsApp chat export (the .txt or the zip with media, iOS or Android, any language) into `messages`",
  flags: [
    {
      flags: "--date-order <order>",
      description:
        "day/month order of the dates: dmy, mdy or ymd (default: decided by the dates, else assumed from the chat's language and clock; the summary says which)",
    },
    {
      flags: "--time-zone <zone>",
      description: "IANA zone the export's wall-clock times are in (default: this machine's zone)",
    },
    {
      flags: "--chat <name>",
      description: "the chat's name (default: from the file name; needed for a bare _chat.txt)",
    },
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
    const headers = lines.filter((l) => parseHeader(cleanLine(l))).length;
    if (headers === 0 || !parseHeader(cleanLine(lines[0]!))) return 0;
    return headers / lines.length >= 0.3 ? 0.9 : 0.4;
  },
};

async function headOfChatText(
  entries: readonly string[],
  head: (name: string) => Promise<string | null>,
): Promise<string | null> {
  const name = entries.find((e) => e.endsWith(".txt") && chatFromFileName(e.split("/").pop()!) !== null);
  return name === undefined ? null : head(name.split("/").pop()!);
}
