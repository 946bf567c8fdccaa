// The tool-name rules of the agent clients `pdpp doctor` checks for: how each names an MCP server's
// tools, with where each rule comes from (the client's source, or its error messages in public
// issue threads when it is closed source). pdpp's own scheme (src/mcp/names.ts) is not among them.
import { createHash } from "node:crypto";

export type ClientName = "Claude Code" | "Codex" | "Cursor" | "Gemini CLI";

/**
 * Claude Code: `mcp__<server>__<tool>`, sent to the Anthropic Messages API, which accepts tool
 * names matching ^[a-zA-Z0-9_-]{1,64}$ and otherwise answers 400 for the whole request
 * ("tools.N.custom.name: String should have at most 64 characters" / "should match pattern"):
 * anthropics/claude-code#467 (pattern), #2445 and #2412 (64 chars), #22276 ("Tool names follow
 * the pattern mcp__<server_name>__<tool_name> with a 64-character limit"). It does not shorten.
 * The server part is normalised (other characters → `_`: the claude.ai connector "Google
 * Calendar" is `mcp__claude_ai_Google_Calendar__…` in public Claude Code configs); the tool part
 * is passed as the server lists it (a tool named `time.get-current-time` breaks every request:
 * microsoft/wassette#56, anthropics/claude-code#467). So servers `my.kb` and `my_kb` share one
 * prefix.
 */
export const CLAUDE_CODE = { limit: 64, valid: /^[A-Za-z0-9_-]+$/ } as const;

export function claudeCodeName(server: string, tool: string): string {
  return `mcp__${server.replace(/[^A-Za-z0-9_-]/g, "_")}__${tool}`;
}

/**
 * Codex (openai/codex, codex-rs/core/src/mcp_connection_manager.rs, `qualify_tools` at
 * 8d3ad7454e0c): raw = `mcp__<server>__<tool>`; every character outside [A-Za-z0-9_-] becomes `_`
 * (`sanitize_responses_api_tool_name`); over MAX_TOOL_NAME_LENGTH = 64 it keeps the first 24
 * characters and appends the 40-hex SHA-1 of the raw name; a name already used is skipped ("skipping
 * duplicated tool"), so of two tools that sanitise alike only the first is callable. A server whose
 * name does not match ^[a-zA-Z0-9_-]+$ fails to start (`validate_mcp_server_name`; the error is
 * quoted in dyoshikawa/rulesync#2215).
 */
export const CODEX = { limit: 64, server: /^[A-Za-z0-9_-]+$/ } as const;

export function codexName(server: string, tool: string): string {
  const raw = `mcp__${server}__${tool}`;
  const sanitized = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  if (sanitized.length <= CODEX.limit) return sanitized;
  const sha1 = createHash("sha1").update(raw, "utf8").digest("hex");
  return `${sanitized.slice(0, CODEX.limit - sha1.length)}${sha1}`;
}

/**
 * Cursor (closed source): its MCP settings warn "Some tools have naming issues and may be filtered
 * out" with "Combined server and tool name length (N) exceeds 60 characters" and leave such tools
 * out; a combined length of exactly 60 is already filtered (ComposioHQ/composio#2788; also
 * awslabs/mcp#1283, executeautomation/mcp-playwright#145). N is len(server) + len(tool).
 */
export const CURSOR = { limit: 60 } as const;

/**
 * Gemini CLI (google-gemini/gemini-cli, packages/core/src/tools/mcp-tool.ts `generateValidName`
 * and tool-registry.ts `registerTool` at 03647aa5cd6f and 6f9c4742032e): a tool keeps its bare name, every
 * character outside [A-Za-z0-9_.-] becoming `_`; over 63 characters it becomes the first 28 +
 * `___` + the last 32. A bare name already registered (by an earlier server) is registered as
 * `<server>__<tool>` instead (`asFullyQualifiedTool`); the Gemini API refuses function names over
 * 64 characters. (Derived copies of later versions name every MCP tool
 * generateValidName(`mcp__<server>__<tool>`); the upstream versions checked here do not.)
 */
export const GEMINI = { bareLimit: 63, apiLimit: 64 } as const;

export function geminiBareName(tool: string): string {
  const valid = tool.replace(/[^A-Za-z0-9_.-]/g, "_");
  return valid.length > GEMINI.bareLimit ? `${valid.slice(0, 28)}___${valid.slice(-32)}` : valid;
}

/** One line per client: its rule, for the report. */
export const CLIENT_RULES: Record<ClientName, string> = {
  "Claude Code":
    "mcp__<server>__<tool> (server: other chars → _), refused by the API unless ≤ 64 chars of [A-Za-z0-9_-]",
  Codex:
    "mcp__<server>__<tool>, other chars → _, over 64 → first 24 chars + SHA-1 (40 hex); a repeated name is skipped",
  Cursor: "server + tool must stay under 60 chars, or the tool is filtered out",
  "Gemini CLI":
    "bare tool name (other chars than [A-Za-z0-9_.-] → _, over 63 → 28 chars + ___ + last 32); <server>__<tool> when the name is taken",
};
