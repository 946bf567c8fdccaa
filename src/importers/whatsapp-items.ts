// A WhatsApp chat export's lines → `messages` records (a header line starts a message, the lines after it
// continue it), and the scan that gathers what the dates and the language say before that. Pure over a
// byte stream: no file, zip or store here (whatsapp.ts opens the input).
import { createHash } from "node:crypto";
import { textLines } from "./text-lines.js";
import type { ImportItem } from "./types.js";
import { type WallClock, wallIso } from "./wall-time.js";
import { type DateOrder, DateOrderEvidence, headerWallTime, ORDER_NAMES } from "./whatsapp-date-order.js";
import { cleanLine, type HeaderLine, parseHeader, withoutMarks } from "./whatsapp-header.js";
import type { Language } from "./whatsapp-locale.js";
import { legacySplit, messageParts } from "./whatsapp-message.js";

export interface DateScan {
  evidence: DateOrderEvidence;
  /** The language most localised marks in the scanned lines are written in. */
  language: Language | null;
}

/** Read headers until the dates leave one order (or to the end), noting the language of localised marks. */
export async function scanDates(chunks: AsyncIterable<Buffer>): Promise<DateScan> {
  const evidence = new DateOrderEvidence();
  const votes = new Map<Language, number>();
  const iterator = textLines(chunks)[Symbol.asyncIterator]();
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const header = parseHeader(cleanLine(next.value.text));
      if (!header) continue;
      evidence.add(header, next.value.line);
      const language = messageParts(header.rest, []).language;
      if (language) votes.set(language, (votes.get(language) ?? 0) + 1);
      if (evidence.decided()) break;
    }
  } finally {
    await iterator.return?.(undefined); // closes the file or zip stream early
  }
  const [top] = [...votes].sort((x, y) => y[1] - x[1]);
  return { evidence, language: top?.[0] ?? null };
}

export interface ChatReadOptions {
  /** The chat's name as records show it. */
  chat: string;
  /** The chat's name as the first importer derived it: part of every message id, so ids stay put. */
  chatKey: string;
  order: DateOrder;
  /** Orders the dates could also be read in: the ids of those readings are deleted (an earlier import's misreading). */
  alternatives: readonly DateOrder[];
  clock: WallClock;
  /** Base names of the export zip's media, null for a bare .txt. */
  media: Set<string> | null;
}

interface Pending {
  line: number;
  header: HeaderLine;
  lines: string[];
}

export async function* whatsappItems(
  chunks: AsyncIterable<Buffer>,
  options: ChatReadOptions,
): AsyncGenerator<ImportItem> {
  let pending: Pending | null = null;
  let orphanReported = false;
  let lastStamp = "";
  const seen = new Map<string, number>(); // identical messages within one timestamp → ordinal

  const idOf = (p: Pending, order: DateOrder, ordinalKey: { sender: string | null; text: string }) => {
    const wall = headerWallTime(p.header, order);
    if (!wall) return null;
    const key = `${options.chatKey}\u0000${wallIso(wall)}\u0000${ordinalKey.sender ?? ""}\u0000${ordinalKey.text}`;
    return { key, wall };
  };

  function* finish(p: Pending): Generator<ImportItem> {
    const position = `line ${p.line}`;
    // The id hashes the message as the first importer split it, so records it wrote are matched, not doubled.
    const legacy = legacySplit(p.header.rest);
    const legacyText = [legacy.text, ...p.lines].join("\n");
    const own = idOf(p, options.order, { sender: legacy.sender, text: legacyText });
    if (!own) {
      const h = p.header;
      yield { error: `not a date read ${ORDER_NAMES[options.order]}: ${h.a}/${h.b}/${h.c}`, position };
      return;
    }
    if (p.header.stamp !== lastStamp) {
      seen.clear();
      lastStamp = p.header.stamp;
    }
    const ordinal = seen.get(own.key) ?? 0;
    seen.set(own.key, ordinal + 1);
    const digest = (key: string) =>
      createHash("sha256").update(`${key}\u0000${ordinal}`).digest("hex").slice(0, 32);
    const parts = messageParts(p.header.rest, p.lines);
    yield {
      stream: "messages",
      position,
      data: {
        message_id: digest(own.key),
        chat: options.chat,
        sender: parts.sender,
        text: parts.text,
        sent_at: options.clock.toIso(own.wall),
        local_time: wallIso(own.wall),
        kind: parts.kind,
        edited: parts.edited,
        attachment: parts.attachment,
        attachment_kind: parts.attachmentKind,
        media_omitted: parts.mediaOmitted,
        attachment_in_export:
          options.media && parts.attachment !== null ? options.media.has(parts.attachment) : null,
      },
    };
    // The same message read in another date order (by an earlier import that guessed it, or before the
    // order was given) had another id: remove that record, so correcting the order corrects in place.
    for (const order of options.alternatives) {
      const other = idOf(p, order, { sender: legacy.sender, text: legacyText });
      if (other && other.key !== own.key) {
        yield { stream: "messages", op: "delete", position, data: { message_id: digest(other.key) } };
      }
    }
  }

  for await (const { text: raw, line } of textLines(chunks)) {
    const text = cleanLine(raw);
    const header = parseHeader(text);
    if (header) {
      if (pending) yield* finish(pending);
      pending = { line, header, lines: [] };
      continue;
    }
    if (pending) pending.lines.push(withoutMarks(text));
    else if (text.trim() !== "" && !orphanReported) {
      // Only the first such line is reported: a wrong file would otherwise reject every line.
      orphanReported = true;
      yield {
        error: "text before the first message line (not a WhatsApp chat export line)",
        position: `line ${line}`,
      };
    }
  }
  if (pending) yield* finish(pending);
}
