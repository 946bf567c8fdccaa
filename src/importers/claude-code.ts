// The Claude Code importer: session logs (~/.claude/projects/<project>/<session>.jsonl, one JSON entry
// per line; a sub-agent's in agent-<id>.jsonl beside them or <session>/subagents/) → sessions +
// messages. Each user/assistant entry becomes its text turn plus one typed record per tool call, tool
// result and thinking block; what Claude Code injects into the user's side (command echoes, caveats,
// interruptions, compaction summaries) is kept typed `context`. A session's title is the best the log
// states: the user's /rename, Claude Code's own title, a summary line, else the first real prompt.
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { agentLogManifest, SESSION_FACTS } from "./agent-log-manifest.js";
import {
  blockMarker,
  contentBlocks,
  inputText,
  isObject,
  isoTime,
  resultText,
  stringOr,
} from "./content-blocks.js";
import type { ImportFormat } from "./import-format.js";
import { type LogFile, type LogLine, openLogDirSource } from "./log-dir.js";
import {
  newSession,
  offerTitle,
  type SessionSummary,
  setFact,
  stateTitle,
  touch,
} from "./session-summary.js";
import type { ImportItem, ImportSource } from "./types.js";

export const CLAUDE_CODE_MANIFEST = agentLogManifest({
  connectorKey: "claude-code",
  displayName: "Claude Code",
  version: "2",
  description:
    "Claude Code sessions from its local logs (~/.claude/projects/**/*.jsonl): turns, tool calls and tool results.",
});

/** Where Claude Code keeps its session logs ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects). */
export function defaultClaudeCodeDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), "projects");
}

export function openClaudeCodeSource(dir: string): Promise<ImportSource> {
  return openLogDirSource(dir, {
    manifest: CLAUDE_CODE_MANIFEST,
    format: "claude-code/2",
    isLog: (path) => path.endsWith(".jsonl"),
    readFile: claudeCodeFileItems,
    settle: settleSummaries,
    sessionFacts: SESSION_FACTS,
    noLogsHint: "Claude Code writes them to ~/.claude/projects/<project>/<session>.jsonl; pass that folder.",
  });
}

export const CLAUDE_CODE_FORMAT: ImportFormat = {
  name: "claude-code",
  description:
    "import Claude Code session logs (default ~/.claude/projects) into `sessions` and `messages`; unchanged log files are skipped",
  argument: {
    syntax: "[dir]",
    description: `the folder of session logs (default: ${defaultClaudeCodeDir()})`,
  },
  defaultPath: () => defaultClaudeCodeDir(),
  defaultLabel: () => "Claude Code",
  open: (path) => openClaudeCodeSource(path),
  readInWorker: true,
  detect: async (probe) => {
    // A folder (or one .jsonl log) whose lines carry sessionId + a type of user/assistant/summary.
    const log = probe.kind === "file" ? probe.path : probe.entries.find((e) => e.endsWith(".jsonl"));
    if (!log || probe.kind === "zip") return 0;
    const text = probe.kind === "file" ? probe.headText : await probe.head(log);
    if (!text) return 0;
    const first = text.split("\n").slice(0, 5).join("\n");
    return /"sessionId"\s*:/.test(first) && /"type"\s*:\s*"(user|assistant|summary)"/.test(first) ? 0.9 : 0;
  },
};

/**
 * Text Claude Code writes on the user's side that the user did not type as a prompt: slash-command
 * echoes and their output, the local-command caveat, reminders, hook output, `!` shell runs,
 * sub-agent notifications and interruptions.
 */
const INJECTED =
  /^\s*(<(command-(name|message|args)|local-command-(stdout|stderr|caveat)|system-reminder|user-prompt-submit-hook|bash-(input|stdout|stderr)|task-notification)>|\[Request interrupted by user|Caveat: )/;

const UUID_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The project folder a log belongs to, whatever folder the import was given: the folder the log sits
 * in (Claude Code names it after the working directory), or for a sub-agent's log under
 * <project>/<session>/subagents/, the folder above its session's.
 */
export function projectOf(file: LogFile): string | null {
  let dir = dirname(file.path);
  if (basename(dir) === "subagents" && UUID_DIR.test(basename(dirname(dir)))) dir = dirname(dirname(dir));
  const name = basename(dir);
  return name === "" || name === "/" ? null : name;
}

/** A summary line: its text names the conversation ending at `leafUuid`, which may be another file's. */
interface PendingSummary {
  leafUuid: string;
  summary: string;
}

/** Summaries no entry of their own file answered: the session holding their leaf takes them. */
function settleSummaries(sessions: Map<string, SessionSummary>, pending: unknown[]): void {
  const byLeaf = new Map<string, SessionSummary>();
  for (const session of sessions.values()) for (const leaf of session.leaves ?? []) byLeaf.set(leaf, session);
  for (const item of pending as PendingSummary[]) {
    const session = byLeaf.get(item.leafUuid);
    if (session) stateTitle(session, "summary", item.summary);
  }
}

export async function* claudeCodeFileItems(
  lines: AsyncIterable<LogLine>,
  context: { file: LogFile; sessions: Map<string, SessionSummary>; pending: unknown[] },
): AsyncGenerator<ImportItem> {
  const project = projectOf(context.file);
  const toolNames = new Map<string, string>(); // tool_use id → name, to name the results
  // Entry uuid → session, and the uuids some entry answers: this file's conversation tree.
  const sessionOfEntry = new Map<string, SessionSummary>();
  const answered = new Set<string>();
  const summaries: PendingSummary[] = [];
  const session = (id: string): SessionSummary => {
    let found = context.sessions.get(id);
    if (!found) {
      found = newSession(id);
      context.sessions.set(id, found);
    }
    return found;
  };
  for await (const line of lines) {
    if ("error" in line) {
      yield line;
      continue;
    }
    const entry = line.data;
    if (entry.type === "summary") {
      if (typeof entry.leafUuid === "string" && typeof entry.summary === "string")
        summaries.push({ leafUuid: entry.leafUuid, summary: entry.summary });
      continue;
    }
    if (entry.type === "custom-title" || entry.type === "ai-title") {
      if (typeof entry.sessionId === "string" && entry.sessionId !== "") {
        const text = entry.type === "custom-title" ? entry.customTitle : entry.aiTitle;
        stateTitle(session(entry.sessionId), entry.type === "custom-title" ? "rename" : "ai", text);
      }
      continue;
    }
    if (entry.type !== "user" && entry.type !== "assistant") continue; // system, snapshots, queue…
    if (typeof entry.parentUuid === "string") answered.add(entry.parentUuid);
    const sessionId = entry.sessionId;
    if (typeof sessionId !== "string" || sessionId === "") {
      yield { error: `${entry.type} entry has no sessionId`, position: line.position };
      continue;
    }
    if (typeof entry.uuid !== "string" || entry.uuid === "") {
      yield { error: `${entry.type} entry has no uuid`, position: line.position };
      continue;
    }
    const message = entry.message;
    if (!isObject(message)) {
      yield { error: `${entry.type} entry has no message object`, position: line.position };
      continue;
    }
    const summary = session(sessionId);
    sessionOfEntry.set(entry.uuid, summary);
    const sentAt = isoTime(entry.timestamp);
    touch(summary, sentAt);
    setFact(summary, "project", project);
    setFact(summary, "cwd", entry.cwd);
    setFact(summary, "git_branch", entry.gitBranch);
    setFact(summary, "version", entry.version);
    setFact(summary, "model", message.model);

    const sidechain = entry.isSidechain === true;
    const base = {
      session_id: sessionId,
      role: stringOr(message.role, entry.type as string),
      model: stringOr(message.model, null),
      sent_at: sentAt,
      cwd: stringOr(entry.cwd, null),
      git_branch: stringOr(entry.gitBranch, null),
      parent_id: stringOr(entry.parentUuid, null),
      is_sidechain: typeof entry.isSidechain === "boolean" ? entry.isSidechain : null,
    };
    const typed = turnBlocks(message.content, { entryId: entry.uuid, toolNames });
    summary.tool_call_count += typed.records.filter((r) => r.kind === "tool_call").length;
    if (typed.texts.length > 0) {
      const text = typed.texts.join("\n\n");
      const injected =
        base.role === "user" &&
        (entry.isMeta === true || entry.isCompactSummary === true || INJECTED.test(text));
      if (!injected && !sidechain) {
        summary.message_count++;
        if (base.role === "user" && typed.prompt !== "") offerTitle(summary, typed.prompt, sentAt);
      }
      yield {
        stream: "messages",
        position: line.position,
        data: {
          ...base,
          message_id: entry.uuid,
          kind: injected ? "context" : "text",
          text,
          tool_name: null,
          tool_use_id: null,
          is_error: null,
        },
      };
    }
    for (const record of typed.records) {
      yield {
        stream: "messages",
        position: line.position,
        data: {
          tool_name: null,
          tool_use_id: null,
          is_error: null,
          ...base,
          // A tool result is the tool speaking, whichever side of the API carried it.
          ...(record.kind === "tool_result" ? { role: "tool" } : {}),
          ...record,
        },
      };
    }
  }
  // The file's leaves (entries nothing here answers) let summaries in other files find this session.
  for (const [uuid, summary] of sessionOfEntry) if (!answered.has(uuid)) summary.leaves.push(uuid);
  for (const item of summaries) {
    const owner = sessionOfEntry.get(item.leafUuid);
    if (owner) stateTitle(owner, "summary", item.summary);
    else context.pending.push(item);
  }
}

/**
 * One message's content: its text parts (non-text blocks of a turn leave a marker, e.g. a pasted
 * image) and the prompt text alone, and a typed record per thinking block, tool call and tool result.
 */
function turnBlocks(
  content: unknown,
  context: { entryId: string; toolNames: Map<string, string> },
): { texts: string[]; prompt: string; records: Record<string, unknown>[] } {
  const texts: string[] = [];
  const prompt: string[] = [];
  const records: Record<string, unknown>[] = [];
  for (const [i, block] of contentBlocks(content).entries()) {
    const id = `${context.entryId}-${i}`;
    if (block.type === "text") {
      if (typeof block.text === "string" && block.text !== "") {
        texts.push(block.text);
        prompt.push(block.text);
      }
    } else if (block.type === "thinking") {
      if (typeof block.thinking === "string" && block.thinking !== "")
        records.push({ message_id: id, kind: "thinking", text: block.thinking });
    } else if (block.type === "tool_use") {
      const name = stringOr(block.name, null);
      const useId = stringOr(block.id, null);
      if (useId && name) context.toolNames.set(useId, name);
      records.push({
        message_id: id,
        kind: "tool_call",
        tool_name: name,
        tool_use_id: useId,
        text: inputText(block.input),
      });
    } else if (block.type === "tool_result") {
      const useId = stringOr(block.tool_use_id, null);
      records.push({
        message_id: id,
        kind: "tool_result",
        tool_name: (useId && context.toolNames.get(useId)) ?? null,
        tool_use_id: useId,
        is_error: block.is_error === true,
        text: resultText(block.content),
      });
    } else if (block.type === "image" || block.type === "document") {
      texts.push(blockMarker(block as Record<string, unknown>));
    }
  }
  return { texts, prompt: prompt.join("\n\n"), records };
}
