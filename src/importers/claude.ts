// The claude.ai importer: the data export's conversations.json (or the export zip, entry streamed) →
// conversations + messages, and its projects (projects.json, or projects/*.json) → projects + their
// knowledge docs. Message ids are scoped to their conversation; edits and retries stay as the tree the
// export holds (parent_message_uuid) with the branch the conversation shows marked; content blocks
// become text, thinking and tool text; attachments and files are kept as metadata (their extracted
// text is searchable). An untitled conversation is titled from its first human message.
import { PdppError } from "../core/errors.js";
import { CLAUDE_MANIFEST } from "./claude-manifest.js";
import { openClaudeProjects } from "./claude-projects.js";
import { contentBlocks, inputText, isObject, isoTime, resultText, stringOr } from "./content-blocks.js";
import { countChunks, openCountedInput } from "./file-input.js";
import type { ImportFormat } from "./import-format.js";
import { streamJsonArray } from "./json-array-stream.js";
import { titleOf } from "./session-summary.js";
import type { ImportItem, ImportSource } from "./types.js";
import { isZipFile, listZip, openZipMember } from "./zip-file.js";

export const CLAUDE_FORMAT: ImportFormat = {
  name: "claude",
  description:
    "import a claude.ai data export (the zip or its conversations.json) into `conversations` and `messages`",
  // Every export has a new file name; the same label maps a newer export onto the same connection.
  defaultLabel: () => "Claude",
  open: (path) => openClaudeSource(path),
  readInWorker: true,
  detect: async (probe) => {
    const text = await probe.head("conversations.json");
    // claude.ai conversations carry `chat_messages` (ChatGPT's carry a `mapping`); a zip of the export
    // also holds users.json.
    if (text === null || !/^\s*\[\s*\{/.test(text) || !/"chat_messages"\s*:/.test(text)) return 0;
    return /"sender"\s*:|"uuid"\s*:/.test(text) ? 0.9 : 0.7;
  },
};

/** Open a claude.ai export: the zip (its conversations.json is streamed, never extracted) or the file. */
export async function openClaudeSource(path: string): Promise<ImportSource> {
  if (await isZipFile(path)) {
    const member = (await listZip(path)).find(
      (m) => m.name === "conversations.json" || m.name.endsWith("/conversations.json"),
    );
    if (!member) {
      throw new PdppError(
        "invalid_request",
        "the zip has no conversations.json: pass the claude.ai export zip (Settings → Privacy → Export data) or its conversations.json.",
      );
    }
    const counted = countChunks((await openZipMember(path, member.name)) as AsyncIterable<Buffer>);
    const projects = await openClaudeProjects(path, { zip: true });
    return {
      manifest: CLAUDE_MANIFEST,
      items: withProjects(claudeItems(counted.chunks), projects.items),
      bytesRead: () => counted.bytesRead() + projects.bytesRead(),
      totalBytes: member.uncompressedSize + projects.totalBytes,
    };
  }
  const input = openCountedInput(path);
  // An unzipped export: projects.json (or projects/) beside conversations.json.
  const projects = await openClaudeProjects(path, { zip: false });
  return {
    manifest: CLAUDE_MANIFEST,
    items: withProjects(claudeItems(input.chunks), projects.items),
    bytesRead: () => input.bytesRead() + projects.bytesRead(),
    totalBytes: (input.totalBytes ?? 0) + projects.totalBytes,
  };
}

async function* withProjects(
  conversations: AsyncIterable<ImportItem>,
  projects: () => AsyncIterable<ImportItem>,
): AsyncGenerator<ImportItem> {
  yield* conversations;
  yield* projects();
}

export async function* claudeItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<ImportItem> {
  for await (const element of streamJsonArray(chunks)) {
    const position =
      "error" in element && element.element === false
        ? `byte ${element.offset}`
        : `conversation ${element.index + 1} (byte ${element.offset})`;
    if ("error" in element) {
      yield { error: element.error, position };
      continue;
    }
    yield* conversationItems(element.value, position);
  }
}

function* conversationItems(value: unknown, position: string): Generator<ImportItem> {
  if (!isObject(value)) {
    yield { error: "a conversation must be a JSON object", position };
    return;
  }
  const conversationId = value.uuid;
  if (typeof conversationId !== "string" || conversationId === "") {
    yield { error: "conversation has no uuid", position };
    return;
  }
  const rawMessages = Array.isArray(value.chat_messages) ? value.chat_messages : [];
  const valid: { raw: Record<string, unknown>; index: number }[] = [];
  const errors: ImportItem[] = [];
  for (const [i, raw] of rawMessages.entries()) {
    const at = `${position} message ${i + 1}`;
    if (!isObject(raw)) {
      errors.push({ error: "a message must be a JSON object", position: at });
      continue;
    }
    if (typeof raw.uuid !== "string" || raw.uuid === "") {
      errors.push({ error: "message has no uuid", position: at });
      continue;
    }
    valid.push({ raw, index: i });
  }
  const current = currentBranch(
    valid.map((v) => v.raw),
    stringOr(value.current_leaf_message_uuid, null),
  );
  const records = valid.map(({ raw, index }) => ({
    ...messageRecord(raw),
    index,
    parent_message_uuid: stringOr(raw.parent_message_uuid, null),
    on_current_branch: current === null || current.has(raw.uuid as string),
  }));
  const named = stringOr(value.name, "").trim();
  const firstHuman = records.find((m) => m.sender === "human" && m.on_current_branch && m.text !== "");
  const title = named !== "" ? stringOr(value.name, "") : firstHuman ? titleOf(firstHuman.text) : "";
  const messages: Record<string, unknown>[] = records.map((m) => ({
    ...m,
    conversation_id: conversationId,
    conversation_title: title,
  }));
  const attachmentCount = messages.reduce((n, m) => n + (m.attachments as unknown[]).length, 0);
  yield {
    stream: "conversations",
    position,
    data: {
      conversation_id: conversationId,
      title,
      summary: stringOr(value.summary, null),
      created_at: isoTime(value.created_at),
      updated_at: isoTime(value.updated_at),
      message_count: messages.length,
      attachment_count: attachmentCount,
      project_id: isObject(value.project)
        ? stringOr(value.project.uuid, null)
        : stringOr(value.project_uuid, null),
    },
  };
  for (const m of messages) {
    yield { stream: "messages", position: `${position} message ${(m.index as number) + 1}`, data: m };
  }
  yield* errors;
}

/**
 * The messages on the branch the conversation shows: from its current leaf (the export's
 * current_leaf_message_uuid when it has one, else the newest leaf, as claude.ai opens it) back through
 * parent_message_uuid. Null when the messages carry no parents (an older, linear export).
 */
export function currentBranch(
  messages: Record<string, unknown>[],
  currentLeaf: string | null,
): Set<string> | null {
  if (!messages.some((m) => typeof m.parent_message_uuid === "string")) return null;
  const byId = new Map(messages.map((m) => [m.uuid as string, m]));
  const parents = new Set<unknown>(messages.map((m) => m.parent_message_uuid));
  let leaf = currentLeaf !== null && byId.has(currentLeaf) ? byId.get(currentLeaf) : undefined;
  if (!leaf) {
    // The newest message nothing answers; on equal times the later in the file.
    const time = (m: Record<string, unknown>) => isoTime(m.created_at) ?? "";
    for (const m of messages) {
      if (parents.has(m.uuid)) continue;
      if (!leaf || time(m) >= time(leaf)) leaf = m;
    }
  }
  const branch = new Set<string>();
  for (let at = leaf; at && !branch.has(at.uuid as string); ) {
    branch.add(at.uuid as string);
    const parent = at.parent_message_uuid;
    at = typeof parent === "string" ? byId.get(parent) : undefined;
  }
  return branch;
}

function messageRecord(
  raw: Record<string, unknown>,
): Record<string, unknown> & { sender: string; text: string } {
  const texts: string[] = [];
  const thinking: string[] = [];
  const tools: string[] = [];
  const toolNames = new Set<string>();
  for (const block of contentBlocks(raw.content)) {
    const name = stringOr(block.name, null);
    switch (block.type) {
      case "text":
        if (typeof block.text === "string" && block.text !== "") texts.push(block.text);
        break;
      case "thinking":
        if (typeof block.thinking === "string" && block.thinking !== "") thinking.push(block.thinking);
        break;
      case "tool_use":
        if (name) toolNames.add(name);
        tools.push(`tool call ${name ?? "(unnamed)"}: ${inputText(block.input)}`);
        break;
      case "tool_result":
        if (name) toolNames.add(name);
        tools.push(
          `tool result ${name ?? ""}${block.is_error === true ? " (error)" : ""}: ${resultText(block.content)}`,
        );
        break;
    }
  }
  // Older exports have only `text`; newer ones have both, and then the blocks are the finer source.
  const text = texts.length > 0 ? texts.join("\n\n") : stringOr(raw.text, "");
  const attachments = (Array.isArray(raw.attachments) ? raw.attachments : []).filter(isObject);
  const files = (Array.isArray(raw.files) ? raw.files : []).filter(isObject);
  const extracted = attachments
    .filter((a) => typeof a.extracted_content === "string" && a.extracted_content !== "")
    .map((a) => `${stringOr(a.file_name, "attachment")}:\n${a.extracted_content as string}`);
  return {
    message_id: raw.uuid,
    sender: stringOr(raw.sender, "unknown"),
    text,
    thinking: thinking.length > 0 ? thinking.join("\n\n") : null,
    tool_text: tools.length > 0 ? tools.join("\n\n") : null,
    tool_names: [...toolNames],
    attachments: attachments.map((a) => ({
      file_name: stringOr(a.file_name, null),
      file_type: stringOr(a.file_type, null),
      file_size: typeof a.file_size === "number" ? a.file_size : null,
    })),
    attachment_text: extracted.length > 0 ? extracted.join("\n\n") : null,
    files: files.map((f) => ({ file_name: stringOr(f.file_name, null) })),
    sent_at: isoTime(raw.created_at),
  };
}
