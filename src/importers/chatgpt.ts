// The ChatGPT importer: conversations.json (or the export zip, entry streamed) → conversations + messages,
// following each conversation's ACTIVE branch (current_node up to the root) so edited-away branches are skipped.
import { type FileHandle, open } from "node:fs/promises";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { PdppError } from "../core/errors.js";
import { CHATGPT_MANIFEST } from "./chatgpt-manifest.js";
import { countChunks, openCountedInput } from "./file-input.js";
import { streamJsonArray } from "./json-array-stream.js";
import type { ImportItem, ImportSource } from "./types.js";

interface ExportNode {
  id?: string;
  parent?: string | null;
  message?: ExportMessage | null;
}

interface ExportMessage {
  id?: string;
  author?: { role?: string };
  create_time?: number | null;
  content?: { content_type?: string; parts?: unknown[]; text?: unknown };
  metadata?: { model_slug?: string; is_visually_hidden_from_conversation?: boolean };
}

interface ExportConversation {
  id?: string;
  conversation_id?: string;
  title?: string;
  create_time?: number | null;
  update_time?: number | null;
  current_node?: string;
  default_model_slug?: string;
  mapping?: Record<string, ExportNode>;
}

/** Open conversations.json, or a ChatGPT export zip (detected by its signature), as an import source. */
export async function openChatgptSource(path: string): Promise<ImportSource> {
  if (await isZip(path)) {
    const entry = await openZipEntry(path, "conversations.json");
    const counted = countChunks(entry);
    return {
      manifest: CHATGPT_MANIFEST,
      items: chatgptItems(counted.chunks),
      // Progress over a zip counts uncompressed bytes of the entry; the total is its uncompressed size.
      bytesRead: counted.bytesRead,
      totalBytes: entry.totalBytes,
    };
  }
  const input = openCountedInput(path);
  return {
    manifest: CHATGPT_MANIFEST,
    items: chatgptItems(input.chunks),
    bytesRead: input.bytesRead,
    totalBytes: input.totalBytes,
  };
}

export async function* chatgptItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<ImportItem> {
  for await (const element of streamJsonArray(chunks)) {
    const position =
      "error" in element && element.element === false
        ? `byte ${element.offset}`
        : `conversation ${element.index + 1} (byte ${element.offset})`;
    if ("error" in element) {
      yield { error: element.error, position };
      continue;
    }
    const conversation = element.value as ExportConversation;
    if (!conversation || typeof conversation !== "object" || Array.isArray(conversation)) {
      yield { error: "a conversation must be a JSON object", position };
      continue;
    }
    const conversationId = conversation.conversation_id ?? conversation.id;
    if (typeof conversationId !== "string" || conversationId === "") {
      yield { error: "conversation has no id", position };
      continue;
    }
    const messages = activeBranch(conversation);
    const title = typeof conversation.title === "string" ? conversation.title : "";
    const lastModel = [...messages].reverse().find((m) => m.model)?.model ?? null;
    yield {
      stream: "conversations",
      position,
      data: {
        conversation_id: conversationId,
        title,
        created_at: epochToIso(conversation.create_time),
        updated_at: epochToIso(conversation.update_time),
        model: conversation.default_model_slug ?? lastModel,
        message_count: messages.length,
      },
    };
    for (const [i, m] of messages.entries()) {
      yield {
        stream: "messages",
        position: `${position} message ${i + 1}`,
        data: { ...m, conversation_id: conversationId, conversation_title: title },
      };
    }
  }
}

interface BranchMessage {
  message_id: string;
  role: string;
  text: string;
  model: string | null;
  sent_at: string | null;
}

/** From current_node walk parents to the root, reverse, keep visible non-empty non-system messages. */
export function activeBranch(conversation: ExportConversation): BranchMessage[] {
  const mapping = conversation.mapping ?? {};
  const path: ExportNode[] = [];
  const seen = new Set<string>();
  let nodeId: string | null | undefined = conversation.current_node ?? newestLeaf(mapping);
  while (nodeId && !seen.has(nodeId) && Object.hasOwn(mapping, nodeId)) {
    seen.add(nodeId); // guards against a parent cycle in a damaged export
    const node: ExportNode = mapping[nodeId]!;
    path.push(node);
    nodeId = node.parent;
  }
  path.reverse();
  const out: BranchMessage[] = [];
  for (const node of path) {
    const message = node.message;
    if (!message) continue;
    const role = message.author?.role ?? "unknown";
    if (role === "system" || message.metadata?.is_visually_hidden_from_conversation) continue;
    const text = messageText(message);
    if (text.trim() === "") continue;
    out.push({
      message_id: message.id ?? node.id ?? "",
      role,
      text,
      model: message.metadata?.model_slug ?? null,
      sent_at: epochToIso(message.create_time),
    });
  }
  return out.filter((m) => m.message_id !== "");
}

function newestLeaf(mapping: Record<string, ExportNode>): string | undefined {
  // Without current_node, the leaf with the latest message time is the branch the user last saw.
  const parents = new Set(Object.values(mapping).map((n) => n.parent));
  let best: string | undefined;
  let bestTime = Number.NEGATIVE_INFINITY;
  for (const [id, node] of Object.entries(mapping)) {
    if (parents.has(id)) continue;
    const time = node.message?.create_time ?? 0;
    if (time >= bestTime) {
      best = id;
      bestTime = time;
    }
  }
  return best;
}

function messageText(message: ExportMessage): string {
  const content = message.content;
  if (!content) return "";
  if (Array.isArray(content.parts)) {
    return content.parts.filter((p): p is string => typeof p === "string").join("\n");
  }
  return typeof content.text === "string" ? content.text : "";
}

function epochToIso(value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  return new Date(Math.round(value * 1000)).toISOString();
}

async function isZip(path: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

/** Stream one entry (matched by base name, anywhere in the zip) without extracting the archive. */
export async function openZipEntry(
  path: string,
  baseName: string,
): Promise<AsyncIterable<Buffer> & { totalBytes: number }> {
  const unreadable = (error: unknown) =>
    new PdppError(
      "invalid_request",
      `${path} is not a readable zip (${error instanceof Error ? error.message : String(error)}); re-download the export.`,
    );
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false }).catch((error) => {
    throw unreadable(error);
  });
  const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
    zip.on("entry", (e: yauzl.Entry) => {
      if (e.fileName === baseName || e.fileName.endsWith(`/${baseName}`)) resolve(e);
      else zip.readEntry();
    });
    zip.on("end", () => resolve(null));
    zip.on("error", (error) => reject(unreadable(error)));
    zip.readEntry();
  });
  if (!entry) {
    zip.close();
    throw new PdppError(
      "invalid_request",
      `${path} has no ${baseName}: pass a ChatGPT export zip or the file itself.`,
    );
  }
  const stream: Readable = await zip.openReadStreamPromise(entry);
  stream.on("close", () => zip.close());
  return Object.assign(stream as AsyncIterable<Buffer>, { totalBytes: entry.uncompressedSize });
}
