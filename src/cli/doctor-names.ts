// Tool-name checks for `pdpp doctor`: the same tool on several servers, and qualified names that
// overflow the 64-char limit clients enforce (mcp__server__tool).
// TODO(H4): delegate the qualification rules to src/mcp/names.ts when it lands.

export const QUALIFIED_NAME_LIMIT = 64;

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
    .map(([tool, owners]) => ({ tool, servers: owners, qualified: owners.map((s) => qualify(s, tool)) }))
    .sort((a, b) => a.tool.localeCompare(b.tool));
  const overLong = servers
    .flatMap(({ server, tools }) => tools.map((tool) => qualify(server, tool)))
    .filter((q) => q.length > QUALIFIED_NAME_LIMIT)
    .map((q) => ({
      qualified: q,
      length: q.length,
      limit: QUALIFIED_NAME_LIMIT,
      shortened: q.slice(0, QUALIFIED_NAME_LIMIT),
    }));
  return { collisions, overLong, notes: [] };
}

function qualify(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");
  return `mcp__${clean(server)}__${clean(tool)}`;
}
