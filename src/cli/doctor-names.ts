// Tool-name checks for `pdpp doctor`, using the qualification rules of src/mcp/names.ts: the same
// tool on several servers, and qualified names over the 64-char limit clients enforce.
import {
  boundedName,
  checkToolNames,
  MAX_TOOL_NAME_CHARS,
  qualifyName,
  sanitizeName,
  ToolNameRegistry,
} from "../mcp/names.js";

export const QUALIFIED_NAME_LIMIT = MAX_TOOL_NAME_CHARS;
/** Codex and Claude Code show tools as mcp__<server>__<tool>. */
const CLIENT_PREFIX = "mcp__";

export interface NameReport {
  collisions: { tool: string; servers: string[]; qualified: string[] }[];
  overLong: { qualified: string; length: number; limit: number; shortened: string }[];
  notes: string[];
}

export function analyseToolNames(servers: { server: string; tools: string[] }[]): NameReport {
  const byTool = new Map<string, string[]>();
  for (const { server, tools } of servers) {
    for (const tool of new Set(tools)) byTool.set(tool, [...(byTool.get(tool) ?? []), server]);
  }
  const collisions = [...byTool.entries()]
    .filter(([, owners]) => owners.length > 1)
    .map(([tool, owners]) => ({ tool, servers: owners, qualified: owners.map((s) => boundedName(s, tool)) }))
    .sort((a, b) => a.tool.localeCompare(b.tool));

  const overLong = checkToolNames(servers).tooLong.map((qualified) => {
    const owner = servers.find((s) => s.tools.some((t) => qualifyName(s.server, t) === qualified));
    const tool = owner?.tools.find((t) => qualifyName(owner.server, t) === qualified) ?? "";
    return {
      qualified,
      length: qualified.length,
      limit: QUALIFIED_NAME_LIMIT,
      shortened: owner ? boundedName(owner.server, tool) : qualified.slice(0, QUALIFIED_NAME_LIMIT),
    };
  });

  const notes: string[] = [];
  const registry = new ToolNameRegistry();
  registry.registerAll(servers);
  for (const note of registry.notes) {
    if (note.reason === "sanitized")
      notes.push(`${note.server}: tool "${note.tool}" is shown as ${note.display}`);
  }
  for (const { server, tools } of servers) {
    for (const tool of tools) {
      const prefixed = `${CLIENT_PREFIX}${qualifyName(sanitizeName(server), sanitizeName(tool))}`;
      if (
        prefixed.length > QUALIFIED_NAME_LIMIT &&
        qualifyName(server, tool).length <= QUALIFIED_NAME_LIMIT
      ) {
        notes.push(
          `${prefixed} is ${prefixed.length} chars: Codex and Claude Code will shorten it; a shorter server name avoids that`,
        );
      }
    }
  }
  return { collisions, overLong, notes };
}

/**
 * Collisions grouped by the set of servers that share them: one line per set instead of one per tool;
 * `example` is how clients qualify one of the tools (search when it is among them).
 */
export function groupCollisions(
  collisions: NameReport["collisions"],
): { servers: string[]; tools: string[]; example: string[] }[] {
  const groups = new Map<string, { servers: string[]; tools: string[]; example: string[] }>();
  for (const collision of collisions) {
    const key = JSON.stringify(collision.servers);
    const group = groups.get(key) ?? { servers: collision.servers, tools: [], example: collision.qualified };
    group.tools.push(collision.tool);
    if (collision.tool === "search") group.example = collision.qualified;
    groups.set(key, group);
  }
  return [...groups.values()];
}
