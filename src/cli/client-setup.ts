// Ready-to-paste MCP client setup for a pdpp store: Claude Desktop, Claude Code, Codex, Cursor,
// Gemini CLI, opencode, generic stdio, and the hosted /mcp URL (pure text; printed by `pdpp demo`
// and `pdpp grant create --setup`).
import { fileURLToPath } from "node:url";

/** bin/pdpp.js of this checkout or package (same depth from src/ and dist/). */
export const PDPP_BIN = fileURLToPath(new URL("../../bin/pdpp.js", import.meta.url));

export interface SetupInput {
  /** Absolute path of the node binary, so configs work without a global `pdpp` install. */
  node: string;
  /** Absolute path of bin/pdpp.js. */
  bin: string;
  /** Absolute pdpp home the stdio adapter opens in-process (`pdpp mcp --store`). */
  home: string;
  /** The client token (pdpp_ct_…). */
  token: string;
  /** The hosted MCP URL (…/mcp), when a server runs or will run. */
  mcpUrl?: string;
  /** Server name in the client configs. */
  name?: string;
}

export interface SetupSnippet {
  title: string;
  where: string;
  text: string;
}

export function stdioArgs(input: SetupInput): string[] {
  return [input.bin, "mcp", "--store", input.home];
}

const OPENCODE_WHERE =
  "opencode.json in the project, or ~/.config/opencode/opencode.json (merge into its mcp)";

/** opencode's own shape: `mcp.<name>` with a type, the command and its arguments in one array. */
function opencodeConfig(name: string, server: Record<string, unknown>): string {
  return JSON.stringify({ $schema: "https://opencode.ai/config.json", mcp: { [name]: server } }, null, 2);
}

export function clientSetupSnippets(input: SetupInput): SetupSnippet[] {
  const name = input.name ?? "pdpp";
  const server = { command: input.node, args: stdioArgs(input), env: { PDPP_TOKEN: input.token } };
  const json = JSON.stringify({ mcpServers: { [name]: server } }, null, 2);
  const toml = [
    `[mcp_servers.${name}]`,
    `command = ${JSON.stringify(input.node)}`,
    `args = [${stdioArgs(input)
      .map((a) => JSON.stringify(a))
      .join(", ")}]`,
    `env = { PDPP_TOKEN = ${JSON.stringify(input.token)} }`,
  ].join("\n");
  const shellCommand = [input.node, ...stdioArgs(input)].map(shellQuote).join(" ");
  const snippets: SetupSnippet[] = [
    {
      title: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config)",
      text: json,
    },
    {
      title: "Claude Code",
      where: "run in a terminal",
      text: `claude mcp add ${name} --env PDPP_TOKEN=${shellQuote(input.token)} -- ${shellCommand}`,
    },
    { title: "Codex", where: "~/.codex/config.toml", text: toml },
    { title: "Cursor", where: ".cursor/mcp.json (project) or ~/.cursor/mcp.json", text: json },
    {
      title: "Gemini CLI",
      where:
        "~/.gemini/settings.json (merge into it; in an untrusted folder Gemini disables MCP servers: choose Trust folder, or /permissions, then check with gemini mcp list)",
      text: json,
    },
    {
      title: "opencode",
      where: OPENCODE_WHERE,
      text: opencodeConfig(name, {
        type: "local",
        command: [input.node, ...stdioArgs(input)],
        enabled: true,
        environment: { PDPP_TOKEN: input.token },
      }),
    },
    {
      title: "Generic stdio",
      where: "any MCP client that spawns a command",
      text: `PDPP_TOKEN=${shellQuote(input.token)} ${shellCommand}`,
    },
  ];
  if (input.mcpUrl) {
    snippets.push({
      title: "Hosted (Streamable HTTP)",
      where:
        "clients that take a URL and a header (Claude Code, Cursor, VS Code); ChatGPT and claude.ai connectors sign in with OAuth instead of a pasted token (README: Remote agents)",
      text: [
        `url:    ${input.mcpUrl}`,
        `header: Authorization: Bearer ${input.token}`,
        `claude mcp add --transport http ${name}-http ${input.mcpUrl} --header ${shellQuote(`Authorization: Bearer ${input.token}`)}`,
      ].join("\n"),
    });
    snippets.push({
      title: "opencode (hosted)",
      where: `${OPENCODE_WHERE}; instead of the local one, while the server runs`,
      text: opencodeConfig(name, {
        type: "remote",
        url: input.mcpUrl,
        enabled: true,
        headers: { Authorization: `Bearer ${input.token}` },
      }),
    });
  }
  return snippets;
}

export function formatSnippets(snippets: SetupSnippet[]): string {
  return snippets.map((s) => `── ${s.title} — ${s.where}\n${s.text}\n`).join("\n");
}

/** Quote a shell word only when it needs it (POSIX single quotes). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
