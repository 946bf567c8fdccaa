// Read the MCP servers an agent client is configured with: Claude Desktop / Cursor / Gemini CLI
// JSON (`mcpServers`, VS Code `servers`), Claude Code's ~/.claude.json (user and per-project
// `mcpServers`), opencode's opencode.json (`mcp.<name>`, local or remote) or Codex TOML
// (`[mcp_servers.<name>]`, under $CODEX_HOME).
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { extname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { PdppError } from "../core/errors.js";

export type ConfiguredServer =
  | {
      name: string;
      transport: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
    }
  | { name: string; transport: "http"; url: string; headers: Record<string, string> };

export interface ClientConfig {
  path: string;
  format: "json" | "toml";
  servers: ConfiguredServer[];
  /** Entries that could not be understood, with why (reported, never fatal). */
  skipped: { name: string; reason: string }[];
}

/** Where clients keep their config on this machine, most common first (used without --config). */
export function defaultConfigPaths(home = homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
    ...(env.APPDATA ? [join(env.APPDATA, "Claude", "claude_desktop_config.json")] : []),
    join(home, ".config", "Claude", "claude_desktop_config.json"),
    join(env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, ".codex"), "config.toml"),
    join(home, ".claude.json"),
    join(home, ".cursor", "mcp.json"),
    join(home, ".gemini", "settings.json"),
    join(home, ".config", "opencode", "opencode.json"),
  ];
}

export function readClientConfig(path: string): ClientConfig {
  if (!existsSync(path)) throw new PdppError("invalid_request", `config file ${path} does not exist.`);
  const text = readFileSync(path, "utf8");
  const toml = extname(path).toLowerCase() === ".toml";
  return toml ? parseCodexToml(path, text) : parseJsonConfig(path, text);
}

export function parseJsonConfig(path: string, text: string): ClientConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PdppError("invalid_request", `${path} is not valid JSON: ${(error as Error).message}.`);
  }
  const root = asObject(parsed);
  const opencode = asObject(root?.mcp);
  const table = {
    ...(asObject(root?.mcpServers) ?? asObject(root?.servers) ?? {}),
    ...projectServers(root),
    ...(opencode ? opencodeServers(opencode) : {}),
  };
  if (
    Object.keys(table).length === 0 &&
    !asObject(root?.mcpServers) &&
    !asObject(root?.servers) &&
    !opencode
  ) {
    throw new PdppError("invalid_request", `${path} has no "mcpServers" object.`);
  }
  return collectServers({ path, format: "json", table });
}

/**
 * Claude Code's ~/.claude.json also keeps servers per project (`projects.<dir>.mcpServers`); each
 * is checked too, named `<name>@<dir>` so it stays apart from a user-scope server of the same name.
 */
function projectServers(root: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [dir, project] of Object.entries(asObject(root?.projects) ?? {})) {
    for (const [name, entry] of Object.entries(asObject(asObject(project)?.mcpServers) ?? {})) {
      out[`${name}@${dir}`] = entry;
    }
  }
  return out;
}

/**
 * opencode keeps servers under `mcp.<name>`: `{type: "local", command: [cmd, ...args],
 * environment}` or `{type: "remote", url, headers}`, `enabled: false` to turn one off. Each entry
 * is put in the common shape (command and args apart, env).
 */
function opencodeServers(table: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(table)) {
    const entry = asObject(raw);
    if (!entry || !Array.isArray(entry.command)) {
      out[name] = raw;
      continue;
    }
    const [command, ...args] = entry.command.map(String);
    out[name] = { ...entry, command, args, env: entry.environment };
  }
  return out;
}

export function parseCodexToml(path: string, text: string): ClientConfig {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new PdppError(
      "invalid_request",
      `${path} is not valid TOML: ${oneLine((error as Error).message)}.`,
    );
  }
  const table = asObject(parsed.mcp_servers);
  if (!table) throw new PdppError("invalid_request", `${path} has no [mcp_servers.<name>] tables.`);
  return collectServers({ path, format: "toml", table });
}

function collectServers(input: {
  path: string;
  format: "json" | "toml";
  table: Record<string, unknown>;
}): ClientConfig {
  const config: ClientConfig = { path: input.path, format: input.format, servers: [], skipped: [] };
  for (const [name, raw] of Object.entries(input.table)) {
    const entry = asObject(raw);
    if (!entry) {
      config.skipped.push({ name, reason: "not an object" });
      continue;
    }
    if (entry.disabled === true || entry.enabled === false) {
      config.skipped.push({ name, reason: "disabled" });
      continue;
    }
    const url = [entry.url, entry.httpUrl, entry.serverUrl].find((v) => typeof v === "string") as
      | string
      | undefined;
    if (typeof entry.command === "string") {
      config.servers.push({
        name,
        transport: "stdio",
        command: entry.command,
        args: Array.isArray(entry.args) ? entry.args.map(String) : [],
        env: stringRecord(entry.env),
        ...(typeof entry.cwd === "string" ? { cwd: entry.cwd } : {}),
      });
    } else if (url) {
      const headers = stringRecord(entry.headers ?? entry.http_headers);
      // Codex keeps an HTTP server's token in an environment variable it names.
      const tokenVar = entry.bearer_token_env_var;
      if (typeof tokenVar === "string" && process.env[tokenVar]) {
        headers.Authorization = `Bearer ${process.env[tokenVar]}`;
      }
      config.servers.push({ name, transport: "http", url, headers });
    } else {
      config.skipped.push({ name, reason: "neither a command nor a url" });
    }
  }
  return config;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function stringRecord(value: unknown): Record<string, string> {
  const object = asObject(value);
  if (!object) return {};
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, String(v)]));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
