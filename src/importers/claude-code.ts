// The Claude Code importer: session logs (~/.claude/projects/<project>/<session>.jsonl, one JSON entry
// per line) → sessions + messages. Each user/assistant entry becomes its text turn plus one typed record
// per tool call, tool result and thinking block; summary, system and bookkeeping entries are not messages.
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { agentLogManifest, SESSION_FACTS } from "./agent-log-manifest.js";
import { contentBlocks, inputText, isObject, isoTime, resultText, stringOr } from "./content-blocks.js";
import type { ImportFormat } from "./import-format.js";
import { type LogFile, type LogLine, openLogDirSource } from "./log-dir.js";
import { newSession, offerTitle, type SessionSummary, setFact, titleOf, touch } from "./session-summary.js";
import type { ImportItem, ImportSource } from "./types.js";

export const CLAUDE_CODE_MANIFEST = agentLogManifest({
  connectorKey: "claude-code",
  displayName: "Claude Code",
  version: "1",
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
    format: "claude-code/1",
    isLog: (path) => path.endsWith(".jsonl"),
    readFile: claudeCodeFileItems,
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

/** Entries that are internal prompts rather than something the user typed (not used as a title). */
const NOT_A_PROMPT = /^\s*<(command-|local-command-|system-reminder|user-prompt-submit-hook)|^Caveat: /;

export async function* claudeCodeFileItems(
  lines: AsyncIterable<LogLine>,
  context: { file: LogFile; sessions: Map<string, SessionSummary> },
): AsyncGenerator<ImportItem> {
  const project = dirname(context.file.relative) === "." ? null : dirname(context.file.relative);
  const toolNames = new Map<string, string>(); // tool_use id → name, to name the results
  for await (const line of lines) {
    if ("error" in line) {
      yield line;
      continue;
    }
    const entry = line.data;
    if (entry.type !== "user" && entry.type !== "assistant") continue; // summary, system, snapshots…
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
    let session = context.sessions.get(sessionId);
    if (!session) {
      session = newSession(sessionId);
      context.sessions.set(sessionId, session);
    }
    const sentAt = isoTime(entry.timestamp);
    touch(session, sentAt);
    setFact(session, "project", project);
    setFact(session, "cwd", entry.cwd);
    setFact(session, "git_branch", entry.gitBranch);
    setFact(session, "version", entry.version);
    setFact(session, "model", message.model);

    const role = stringOr(message.role, entry.type as string);
    const base = {
      session_id: sessionId,
      role,
      model: stringOr(message.model, null),
      sent_at: sentAt,
      cwd: stringOr(entry.cwd, null),
      git_branch: stringOr(entry.gitBranch, null),
      parent_id: stringOr(entry.parentUuid, null),
      is_sidechain: typeof entry.isSidechain === "boolean" ? entry.isSidechain : null,
    };
    const texts: string[] = [];
    const typed: Record<string, unknown>[] = [];
    for (const [i, block] of contentBlocks(message.content).entries()) {
      const id = `${entry.uuid}-${i}`;
      if (block.type === "text" && typeof block.text === "string" && block.text !== "")
        texts.push(block.text);
      else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
        typed.push({ message_id: id, kind: "thinking", text: block.thinking });
      } else if (block.type === "tool_use") {
        const name = stringOr(block.name, null);
        const useId = stringOr(block.id, null);
        if (useId && name) toolNames.set(useId, name);
        session.tool_call_count++;
        typed.push({
          message_id: id,
          kind: "tool_call",
          tool_name: name,
          tool_use_id: useId,
          text: inputText(block.input),
        });
      } else if (block.type === "tool_result") {
        const useId = stringOr(block.tool_use_id, null);
        typed.push({
          message_id: id,
          kind: "tool_result",
          tool_name: (useId && toolNames.get(useId)) ?? null,
          tool_use_id: useId,
          is_error: block.is_error === true,
          text: resultText(block.content),
        });
      }
    }
    const title = session.title; // the session's first prompt so far
    if (texts.length > 0) {
      const text = texts.join("\n\n");
      const isPrompt = role === "user" && entry.isMeta !== true && !NOT_A_PROMPT.test(text);
      if (isPrompt) offerTitle(session, text, sentAt);
      session.message_count++;
      yield {
        stream: "messages",
        position: line.position,
        data: {
          ...base,
          message_id: entry.uuid,
          kind: "text",
          text,
          tool_name: null,
          tool_use_id: null,
          is_error: null,
          session_title: session.title ?? (isPrompt ? titleOf(text) : ""),
        },
      };
    }
    for (const record of typed) {
      yield {
        stream: "messages",
        position: line.position,
        data: {
          tool_name: null,
          tool_use_id: null,
          is_error: null,
          ...base,
          ...record,
          session_title: title ?? "",
        },
      };
    }
  }
}
