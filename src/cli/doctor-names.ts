// Tool-name checks for `pdpp doctor`: what each agent client really calls the tools of a config's
// servers (doctor-client-rules.ts, each rule with its source), which names it shortens, drops or
// refuses, and which tools of different servers end up with the same name. pdpp's own
// qualification scheme (src/mcp/names.ts) is not what clients do and is not used here.
import {
  CLAUDE_CODE,
  type ClientName,
  CODEX,
  CURSOR,
  claudeCodeName,
  codexName,
  GEMINI,
  geminiBareName,
} from "./doctor-client-rules.js";

export { CLIENT_RULES, type ClientName, codexName, geminiBareName } from "./doctor-client-rules.js";

export interface ServerTools {
  server: string;
  tools: string[];
}

/** A tool of a server, as configured and as listed by tools/list. */
export interface ToolRef {
  server: string;
  tool: string;
}

/** A name a client shortens, refuses or filters out: a warning. */
export interface LongName extends ToolRef {
  client: ClientName;
  /** What the length is measured on (the qualified name, or Cursor's server + tool). */
  measured: string;
  length: number;
  limit: number;
  /** What the client does: the shortened name, or null when it refuses or drops the tool. */
  shownAs: string | null;
  outcome: string;
}

/** Tools of different servers (or one server) that a client gives one name: a warning. */
export interface NameClash {
  client: ClientName;
  name: string;
  tools: ToolRef[];
  outcome: string;
}

/** The same tool name on several servers: clients qualify it, so it is a note, not a warning. */
export interface SharedName {
  tool: string;
  servers: string[];
}

export interface NameReport {
  shared: SharedName[];
  long: LongName[];
  clashes: NameClash[];
  /** Server names a client refuses (the whole server does not start there): warnings. */
  badServers: { client: ClientName; server: string; outcome: string }[];
  /** Names a client passes on with characters its model API refuses: warnings. */
  invalid: (ToolRef & { client: ClientName; name: string; outcome: string })[];
}

// ------------------------------------------------------------------------------------ analysis

function ref(server: string, tool: string): ToolRef {
  return { server, tool };
}

/** Names a client gives, in registration order (config order, then tools/list order). */
function assign(
  servers: ServerTools[],
  nameOf: (server: string, tool: string, taken: Set<string>) => string,
): Map<string, ToolRef[]> {
  const byName = new Map<string, ToolRef[]>();
  const taken = new Set<string>();
  for (const { server, tools } of servers) {
    for (const tool of new Set(tools)) {
      const name = nameOf(server, tool, taken);
      taken.add(name);
      byName.set(name, [...(byName.get(name) ?? []), ref(server, tool)]);
    }
  }
  return byName;
}

function clashesOf(client: ClientName, byName: Map<string, ToolRef[]>, outcome: string): NameClash[] {
  return [...byName.entries()]
    .filter(([, tools]) => tools.length > 1)
    .map(([name, tools]) => ({ client, name, tools, outcome }));
}

export function analyseToolNames(servers: ServerTools[]): NameReport {
  const long: LongName[] = [];
  const clashes: NameClash[] = [];
  const badServers: NameReport["badServers"] = [];
  const invalid: NameReport["invalid"] = [];
  const each = (fn: (server: string, tool: string) => void) => {
    for (const { server, tools } of servers) for (const tool of new Set(tools)) fn(server, tool);
  };

  // Claude Code: no rewriting; too long or invalid characters → the API refuses every request.
  each((server, tool) => {
    const name = claudeCodeName(server, tool);
    if (name.length > CLAUDE_CODE.limit)
      long.push({
        client: "Claude Code",
        server,
        tool,
        measured: name,
        length: name.length,
        limit: CLAUDE_CODE.limit,
        shownAs: null,
        outcome: "the Anthropic API refuses the request while this tool is listed",
      });
    if (!CLAUDE_CODE.valid.test(name))
      invalid.push({
        client: "Claude Code",
        server,
        tool,
        name,
        outcome:
          "the tool name has characters outside [A-Za-z0-9_-]: the Anthropic API refuses the request while it is listed",
      });
  });
  clashes.push(
    ...clashesOf("Claude Code", assign(servers, claudeCodeName), "the model sees one name for two tools"),
  );

  // Codex: sanitised, then 24 chars + SHA-1 past 64; a repeated name is skipped.
  for (const { server } of servers) {
    if (!CODEX.server.test(server))
      badServers.push({
        client: "Codex",
        server,
        outcome: "Codex refuses this server name (it must match ^[a-zA-Z0-9_-]+$); the server does not start",
      });
  }
  const codexServers = servers.filter((s) => CODEX.server.test(s.server));
  for (const { server, tools } of codexServers)
    for (const tool of new Set(tools)) {
      const sanitized = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
      if (sanitized.length > CODEX.limit)
        long.push({
          client: "Codex",
          server,
          tool,
          measured: sanitized,
          length: sanitized.length,
          limit: CODEX.limit,
          shownAs: codexName(server, tool),
          outcome: "Codex shortens it",
        });
    }
  const codexNames = assign(codexServers, codexName);
  for (const clash of clashesOf("Codex", codexNames, "")) {
    const [kept, ...skipped] = clash.tools;
    clash.outcome = `Codex keeps ${kept.server}/${kept.tool} and skips ${skipped.map((t) => `${t.server}/${t.tool}`).join(", ")}`;
    clashes.push(clash);
  }

  // Cursor: len(server) + len(tool) ≥ 60 → filtered out.
  each((server, tool) => {
    const length = server.length + tool.length;
    if (length >= CURSOR.limit)
      long.push({
        client: "Cursor",
        server,
        tool,
        measured: `${server} + ${tool}`,
        length,
        limit: CURSOR.limit - 1,
        shownAs: null,
        outcome: "Cursor filters the tool out",
      });
  });

  // Gemini CLI: bare names first come, first served; later ones become <server>__<tool>.
  const geminiNames = assign(servers, (server, tool, taken) => {
    const bare = geminiBareName(tool);
    return taken.has(bare) ? `${server}__${tool}` : bare;
  });
  for (const [name, tools] of geminiNames) {
    for (const t of tools) {
      const bare = geminiBareName(t.tool);
      const valid = t.tool.replace(/[^A-Za-z0-9_.-]/g, "_");
      if (name === bare && valid.length > GEMINI.bareLimit)
        long.push({
          client: "Gemini CLI",
          ...t,
          measured: valid,
          length: valid.length,
          limit: GEMINI.bareLimit,
          shownAs: bare,
          outcome: "Gemini CLI shortens it",
        });
      else if (name !== bare && name.length > GEMINI.apiLimit)
        long.push({
          client: "Gemini CLI",
          ...t,
          measured: name,
          length: name.length,
          limit: GEMINI.apiLimit,
          shownAs: null,
          outcome: "the Gemini API refuses this function name",
        });
    }
  }
  clashes.push(...clashesOf("Gemini CLI", geminiNames, "the later registration replaces the earlier one"));

  const owners = new Map<string, string[]>();
  for (const { server, tools } of servers)
    for (const tool of new Set(tools)) owners.set(tool, [...(owners.get(tool) ?? []), server]);
  const shared = [...owners.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([tool, list]) => ({ tool, servers: list }))
    .sort((a, b) => a.tool.localeCompare(b.tool));
  return { shared, long, clashes, badServers, invalid };
}

/** Shared names grouped by the set of servers that share them: one line per set. */
export function groupShared(shared: SharedName[]): { servers: string[]; tools: string[] }[] {
  const groups = new Map<string, { servers: string[]; tools: string[] }>();
  for (const s of shared) {
    const key = JSON.stringify(s.servers);
    const group = groups.get(key) ?? { servers: s.servers, tools: [] };
    group.tools.push(s.tool);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** How each client names one shared tool on each of its servers (for the report's example). */
export function sharedExample(tool: string, servers: string[], all: ServerTools[]): string {
  const gemini = assign(all, (server, t, taken) => {
    const bare = geminiBareName(t);
    return taken.has(bare) ? `${server}__${t}` : bare;
  });
  const geminiOf = (server: string) =>
    [...gemini.entries()].find(([, refs]) => refs.some((r) => r.server === server && r.tool === tool))?.[0];
  return [
    `Claude Code ${servers.map((s) => claudeCodeName(s, tool)).join(", ")}`,
    `Codex ${servers.map((s) => (CODEX.server.test(s) ? codexName(s, tool) : `(${s} not started)`)).join(", ")}`,
    `Gemini CLI ${servers.map((s) => geminiOf(s) ?? tool).join(", ")}`,
  ].join("; ");
}

export function warningCount(report: NameReport): number {
  return report.long.length + report.clashes.length + report.badServers.length + report.invalid.length;
}
