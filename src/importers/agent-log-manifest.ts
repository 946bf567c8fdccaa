// The manifests of the coding-agent log importers (`claude-code`, `codex`): the same two streams, a
// session per session id and its messages, tool calls and tool results as separate typed records.
import type { Manifest } from "../core/manifest.js";

const TIME_OPS = ["gte", "gt", "lte", "lt"] as const;

/** Session fields beyond the common ones, from the logs' own metadata. */
export const SESSION_FACTS = ["project", "cwd", "git_branch", "git_commit", "version", "model"] as const;

export function agentLogManifest(options: {
  connectorKey: string;
  displayName: string;
  description: string;
  /** Format of the records: bump when the importer changes what it emits. */
  version: string;
}): Manifest {
  return {
    connector_key: options.connectorKey,
    display_name: options.displayName,
    version: options.version,
    description: options.description,
    streams: [
      {
        name: "sessions",
        display_name: "Sessions",
        primary_key: ["session_id"],
        cursor_field: "ended_at",
        time_field: "started_at",
        title_field: "title",
        schema: {
          type: "object",
          properties: {
            session_id: { type: "string" },
            title: {
              type: "string",
              description:
                "The session's title: the user's rename, else the agent's own title, else the log's summary, else the first real user prompt (shortened).",
            },
            title_source: {
              type: "string",
              description: "Where the title came from: rename, ai, summary or prompt.",
            },
            project: {
              type: "string",
              description:
                "The project folder of the log (Claude Code names it after the working directory).",
            },
            cwd: { type: "string", description: "The working directory the agent ran in." },
            git_branch: { type: "string" },
            git_commit: { type: "string" },
            version: { type: "string", description: "Version of the agent CLI." },
            model: { type: "string", description: "The first model the session used." },
            started_at: { type: "string", format: "date-time" },
            ended_at: { type: "string", format: "date-time" },
            message_count: {
              type: "integer",
              description:
                "User and assistant text turns (injected context and sub-agents' turns not counted).",
            },
            tool_call_count: { type: "integer" },
          },
          required: ["session_id"],
        },
        text_fields: [],
        query: {
          search: ["title", "cwd", "project", "git_branch"],
          exact_filters: ["session_id", "project", "cwd", "git_branch", "model", "version"],
          range_filters: {
            started_at: [...TIME_OPS],
            ended_at: [...TIME_OPS],
            message_count: ["gte", "lte"],
            tool_call_count: ["gte", "lte"],
          },
          aggregations: {
            group_by: ["project", "cwd", "git_branch", "model", "version"],
            group_by_time: ["started_at", "ended_at"],
            sum: ["message_count", "tool_call_count"],
            min: ["started_at"],
            max: ["ended_at"],
            count_distinct: ["project", "cwd", "model"],
          },
        },
      },
      {
        name: "messages",
        display_name: "Messages and tool calls",
        primary_key: ["session_id", "message_id"],
        cursor_field: "sent_at",
        time_field: "sent_at",
        schema: {
          type: "object",
          properties: {
            session_id: { type: "string" },
            message_id: { type: "string", description: "Unique within its session." },
            kind: {
              type: "string",
              description:
                "text (a user or assistant turn), tool_call, tool_result, thinking/reasoning, or context (what the agent injected on the user's side: instructions, command echoes, interruptions, compaction summaries).",
            },
            role: { type: "string", description: "user, assistant, or tool for a tool's result." },
            text: {
              type: "string",
              description: "The turn's text, a tool call's input, or a tool result's output.",
            },
            tool_name: { type: "string" },
            tool_use_id: { type: "string", description: "Links a tool call to its result." },
            is_error: { type: "boolean", description: "A tool result that reported an error." },
            model: { type: "string" },
            sent_at: { type: "string", format: "date-time" },
            cwd: { type: "string" },
            git_branch: { type: "string" },
            parent_id: { type: "string", description: "The previous entry in the log's conversation tree." },
            is_sidechain: { type: "boolean", description: "Written by a sub-agent." },
          },
          required: ["session_id", "message_id"],
        },
        text_fields: ["text"],
        query: {
          search: ["text", "tool_name"],
          exact_filters: [
            "session_id",
            "kind",
            "role",
            "tool_name",
            "tool_use_id",
            "model",
            "is_error",
            "cwd",
          ],
          range_filters: { sent_at: [...TIME_OPS] },
          aggregations: {
            group_by: ["kind", "role", "tool_name", "model", "session_id", "cwd"],
            group_by_time: ["sent_at"],
            min: ["sent_at"],
            max: ["sent_at"],
            count_distinct: ["session_id", "tool_name"],
          },
        },
      },
    ],
  };
}
