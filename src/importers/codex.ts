// The Codex CLI importer: session rollouts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) → sessions +
// messages. Reads the envelope layout ({timestamp, type, payload}: session_meta, turn_context,
// response_item, event_msg) and the older bare layout (a meta line, then bare response items).
// Messages are the response items (event_msg lines repeat them for the UI and are not imported).
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { agentLogManifest, SESSION_FACTS } from "./agent-log-manifest.js";
import { isObject, isoTime, resultText, stringOr } from "./content-blocks.js";
import type { ImportFormat } from "./import-format.js";
import { type LogFile, type LogLine, openLogDirSource } from "./log-dir.js";
import { newSession, offerTitle, type SessionSummary, setFact, touch } from "./session-summary.js";
import type { ImportItem, ImportSource } from "./types.js";

export const CODEX_MANIFEST = agentLogManifest({
  connectorKey: "codex",
  displayName: "Codex",
  version: "1",
  description:
    "Codex CLI sessions from its rollout logs ($CODEX_HOME/sessions/**/rollout-*.jsonl): turns, tool calls and outputs.",
});

/** Where Codex keeps its rollouts: $CODEX_HOME/sessions, CODEX_HOME defaulting to ~/.codex. */
export function defaultCodexDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.CODEX_HOME || join(homedir(), ".codex"), "sessions");
}

export function openCodexSource(dir: string): Promise<ImportSource> {
  return openLogDirSource(dir, {
    manifest: CODEX_MANIFEST,
    format: "codex/1",
    isLog: (path) => /(^|\/)rollout-[^/]*\.jsonl$/.test(path),
    readFile: codexFileItems,
    sessionFacts: SESSION_FACTS,
    noLogsHint:
      "Codex writes them to ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (or $CODEX_HOME/sessions).",
  });
}

export const CODEX_FORMAT: ImportFormat = {
  name: "codex",
  description:
    "import Codex CLI session rollouts (default $CODEX_HOME/sessions, else ~/.codex/sessions) into `sessions` and `messages`; unchanged files are skipped",
  argument: { syntax: "[dir]", description: `the folder of rollouts (default: ${defaultCodexDir()})` },
  defaultPath: () => defaultCodexDir(),
  defaultLabel: () => "Codex",
  open: (path) => openCodexSource(path),
  detect: async (probe) => {
    // A folder holding rollout-*.jsonl files, or one rollout, whose first line is the session meta.
    if (probe.kind === "zip") return 0;
    const log =
      probe.kind === "file" ? probe.path : probe.entries.find((e) => /(^|\/)rollout-[^/]*\.jsonl$/.test(e));
    if (!log) return 0;
    const text = probe.kind === "file" ? probe.headText : await probe.head(log);
    const first = (text ?? "").split("\n", 1)[0] ?? "";
    if (/"type"\s*:\s*"session_meta"/.test(first)) return 0.9;
    return probe.kind === "directory" ? 0.6 : 0;
  },
};

/** Text Codex injects as a user message (instructions, environment): kept, as kind `context`. */
const CONTEXT_PREFIX =
  /^\s*<(user_instructions|environment_context|user_shell_command|turn_aborted)>|^# AGENTS\.md/;

/** The session id in a rollout file name (rollout-2025-05-07T17-24-21-<uuid>.jsonl), else the name. */
function sessionIdFromName(file: LogFile): string {
  const name = basename(file.relative, ".jsonl");
  return /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(name)?.[1] ?? name;
}

export async function* codexFileItems(
  lines: AsyncIterable<LogLine>,
  context: { file: LogFile; sessions: Map<string, SessionSummary> },
): AsyncGenerator<ImportItem> {
  let session: SessionSummary | null = null;
  let model: string | null = null;
  const toolNames = new Map<string, string>(); // call_id → tool name, to name the outputs
  const open = (id: string): SessionSummary => {
    const known = context.sessions.get(id);
    if (known) return known;
    const created = newSession(id);
    context.sessions.set(id, created);
    return created;
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber = Number(/:(\d+)$/.exec(line.position)?.[1] ?? lineNumber + 1);
    if ("error" in line) {
      yield line;
      continue;
    }
    const entry = line.data;
    const enveloped = typeof entry.type === "string" && isObject(entry.payload);
    const kind = enveloped ? (entry.type as string) : null;
    const payload = enveloped ? (entry.payload as Record<string, unknown>) : entry;
    const time = isoTime(entry.timestamp) ?? isoTime(payload.timestamp);

    // Session metadata: the envelope's session_meta, or the bare layout's first line ({id, timestamp…}).
    if (
      kind === "session_meta" ||
      (!enveloped && payload.type === undefined && typeof payload.id === "string")
    ) {
      if (typeof payload.id !== "string" || payload.id === "") {
        yield { error: "session_meta has no id", position: line.position };
        continue;
      }
      session = open(payload.id);
      touch(session, time);
      setFact(session, "cwd", payload.cwd);
      setFact(session, "version", payload.cli_version);
      const git = isObject(payload.git) ? payload.git : {};
      setFact(session, "git_branch", git.branch);
      setFact(session, "git_commit", git.commit_hash);
      continue;
    }
    if (kind === "turn_context") {
      if (typeof payload.model === "string") model = payload.model;
      if (session) setFact(session, "model", payload.model);
      continue;
    }
    if (kind !== null && kind !== "response_item") continue; // event_msg, compacted…: not messages
    if (payload.record_type !== undefined || typeof payload.type !== "string") continue;

    session ??= open(sessionIdFromName(context.file));
    touch(session, time);
    const record = responseRecord(payload, toolNames);
    if (!record) continue;
    if (record.kind === "text") {
      if (record.role === "user" && CONTEXT_PREFIX.test(record.text as string)) record.kind = "context";
      else {
        session.message_count++;
        if (record.role === "user") offerTitle(session, record.text as string, time);
      }
    }
    if (record.kind === "tool_call") session.tool_call_count++;
    yield {
      stream: "messages",
      position: line.position,
      data: {
        session_id: session.session_id,
        message_id: `L${lineNumber}`,
        role: null,
        tool_name: null,
        tool_use_id: null,
        is_error: null,
        ...record,
        model: record.role === "user" ? null : model,
        sent_at: time,
        session_title: session.title ?? "",
        cwd: session.facts.cwd ?? null,
        git_branch: session.facts.git_branch ?? null,
        parent_id: null,
        is_sidechain: null,
      },
    };
  }
}

/** One response item as a message record's own fields, or null when it carries nothing to keep. */
function responseRecord(
  item: Record<string, unknown>,
  toolNames: Map<string, string>,
): Record<string, unknown> | null {
  const callId = stringOr(item.call_id, null);
  switch (item.type) {
    case "message": {
      const role = stringOr(item.role, "unknown");
      if (role !== "user" && role !== "assistant") return null; // developer/system instructions
      const text = (Array.isArray(item.content) ? item.content : [])
        .filter(isObject)
        .map((part) => (typeof part.text === "string" ? part.text : ""))
        .filter((t) => t !== "")
        .join("\n\n");
      return text === "" ? null : { kind: "text", role, text };
    }
    case "reasoning": {
      const summary = (Array.isArray(item.summary) ? item.summary : [])
        .filter(isObject)
        .map((part) => stringOr(part.text, ""))
        .filter((t) => t !== "")
        .join("\n\n");
      // Only the readable summary: the reasoning itself is stored encrypted.
      return summary === "" ? null : { kind: "reasoning", role: "assistant", text: summary };
    }
    case "function_call":
    case "custom_tool_call":
    case "local_shell_call":
    case "web_search_call": {
      const name =
        stringOr(item.name, null) ??
        (item.type === "local_shell_call"
          ? "local_shell"
          : item.type === "web_search_call"
            ? "web_search"
            : null);
      if (callId && name) toolNames.set(callId, name);
      const input = item.arguments ?? item.input ?? item.action ?? null;
      return {
        kind: "tool_call",
        role: "assistant",
        tool_name: name,
        tool_use_id: callId,
        text: typeof input === "string" ? input : input === null ? "" : JSON.stringify(input),
      };
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const { text, isError } = outputText(item.output);
      return {
        kind: "tool_result",
        role: "tool",
        tool_name: (callId && toolNames.get(callId)) ?? null,
        tool_use_id: callId,
        is_error: isError,
        text,
      };
    }
    default:
      return null;
  }
}

/** A tool output: a string (often JSON {output, metadata:{exit_code}}) or an object {content, success}. */
function outputText(output: unknown): { text: string; isError: boolean | null } {
  let value = output;
  if (typeof output === "string" && output.startsWith("{")) {
    try {
      value = JSON.parse(output);
    } catch {
      value = output;
    }
  }
  if (typeof value === "string") return { text: value, isError: null };
  if (isObject(value)) {
    const text =
      typeof value.output === "string" ? value.output : resultText(value.content ?? JSON.stringify(value));
    const exit = isObject(value.metadata) ? value.metadata.exit_code : undefined;
    const isError =
      typeof value.success === "boolean" ? !value.success : typeof exit === "number" ? exit !== 0 : null;
    return { text, isError };
  }
  return { text: value === undefined || value === null ? "" : JSON.stringify(value), isError: null };
}
