// The Codex CLI importer: session rollouts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) → sessions +
// messages. Reads the envelope layout ({timestamp, type, payload}: session_meta, turn_context,
// response_item, event_msg) and the older bare layout of 2025 (a meta line {id, timestamp,
// instructions, git}, then bare response items without times; the working directory only in the
// injected <environment_context>). Messages are the response items (event_msg lines repeat them for
// the UI and are not imported).
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { agentLogManifest, SESSION_FACTS } from "./agent-log-manifest.js";
import { blockMarker, isObject, isoTime, resultText, stringOr } from "./content-blocks.js";
import type { ImportFormat } from "./import-format.js";
import { type LogFile, type LogLine, openLogDirSource } from "./log-dir.js";
import { newSession, offerTitle, type SessionSummary, setFact, touch } from "./session-summary.js";
import type { ImportItem, ImportSource } from "./types.js";

export const CODEX_MANIFEST = agentLogManifest({
  connectorKey: "codex",
  displayName: "Codex",
  version: "2",
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
    format: "codex/2",
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
  readInWorker: true,
  detect: async (probe) => {
    // A folder holding rollout-*.jsonl files, or one rollout, whose first line is the session meta.
    if (probe.kind === "zip") return 0;
    const log =
      probe.kind === "file" ? probe.path : probe.entries.find((e) => /(^|\/)rollout-[^/]*\.jsonl$/.test(e));
    if (!log) return 0;
    const text = probe.kind === "file" ? probe.headText : await probe.head(log);
    const first = (text ?? "").split("\n", 1)[0] ?? "";
    if (/"type"\s*:\s*"session_meta"/.test(first) || isBareMeta(first)) return 0.9;
    return probe.kind === "directory" ? 0.6 : 0;
  },
};

/** The bare layout's first line: {id, timestamp, instructions|git…} with no `type`. */
function isBareMeta(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  return (
    isObject(value) &&
    value.type === undefined &&
    typeof value.id === "string" &&
    typeof value.timestamp === "string" &&
    ("instructions" in value || "git" in value)
  );
}

/** The working directory in an <environment_context> block (the bare layout has it nowhere else). */
function contextCwd(text: string): string | null {
  const found = /<cwd>([^<]*)<\/cwd>/.exec(text)?.[1]?.trim();
  return found ? found : null;
}

/** The time in a rollout file name (rollout-2025-05-07T17-24-21-<uuid>.jsonl), as ISO-8601 UTC. */
function timeFromName(file: LogFile): string | null {
  const m = /rollout-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})/.exec(basename(file.relative));
  return m ? isoTime(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) : null;
}

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
  // The bare layout's items carry no time: they fall back to the session's start (or the file name's).
  let start: string | null = null;
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
    const stamped = isoTime(entry.timestamp) ?? isoTime(payload.timestamp);
    const time = stamped ?? start ?? timeFromName(context.file);

    // Session metadata: the envelope's session_meta, or the bare layout's first line ({id, timestamp…}).
    if (
      kind === "session_meta" ||
      (!enveloped && payload.type === undefined && typeof payload.id === "string")
    ) {
      if (typeof payload.id !== "string" || payload.id === "") {
        yield { error: "session_meta has no id", position: line.position };
        continue;
      }
      // A resumed or forked rollout repeats its parent's meta after its own: the first one is the file's.
      if (session) continue;
      session = open(payload.id);
      start = stamped;
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
      if (record.role === "user" && CONTEXT_PREFIX.test(record.text as string)) {
        record.kind = "context";
        setFact(session, "cwd", contextCwd(record.text as string));
      } else {
        session.message_count++;
        if (record.role === "user" && record.prompt !== "")
          offerTitle(session, record.prompt as string, time);
      }
    }
    if (record.kind === "tool_call") session.tool_call_count++;
    const { prompt: _prompt, ...fields } = record;
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
        ...fields,
        model: record.role === "user" ? null : model,
        sent_at: time,
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
      const parts = (Array.isArray(item.content) ? item.content : []).filter(isObject);
      // A pasted image leaves a marker (its bytes are not kept); the prompt alone may title the session.
      const prompt = parts
        .map((part) => (typeof part.text === "string" ? part.text : ""))
        .filter((t) => t !== "")
        .join("\n\n");
      const text = parts
        .map((part) =>
          typeof part.text === "string" ? part.text : part.type === "input_image" ? blockMarker(part) : "",
        )
        .filter((t) => t !== "")
        .join("\n\n");
      return text === "" ? null : { kind: "text", role, text, prompt };
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

/**
 * A shell run's exit code in Codex's plain-text output: `Exit code: 1` first, then `Wall time: …` and
 * `Output:`; or the unified exec's header, whose `Process exited with code 1` line precedes `Output:`.
 */
function plainExitCode(text: string): number | null {
  const header = text.slice(0, Math.max(0, text.indexOf("\nOutput:")) || 300);
  const code = /^Exit code: (-?\d+)$/m.exec(header) ?? /^Process exited with code (-?\d+)$/m.exec(header);
  return code ? Number(code[1]) : null;
}

/**
 * A tool output: a string (plain text, or JSON {output, metadata:{exit_code}}), content items
 * ([{type:"input_text", text}, {type:"input_image", image_url}]: the text kept, each image marked,
 * its base64 never stored), or an object {content, success}.
 */
function outputText(output: unknown): { text: string; isError: boolean | null } {
  let value = output;
  if (typeof output === "string" && output.startsWith("{")) {
    try {
      value = JSON.parse(output);
    } catch {
      value = output;
    }
  }
  if (typeof value === "string") {
    const code = plainExitCode(value);
    return { text: value, isError: code === null ? null : code !== 0 };
  }
  if (Array.isArray(value)) return { text: resultText(value), isError: null };
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
