// Qualified MCP tool names next to other servers (30-mcp.md, seeds/004): `server__tool` only on
// collision, sanitised to [A-Za-z0-9_-], ≤ 64 chars with a stable hash suffix, resolved through a
// registry (never by reverse-parsing a shortened name), with a note whenever a fallback applies.
import { createHash } from "node:crypto";

export const NAME_DELIMITER = "__";
export const MAX_TOOL_NAME_CHARS = 64;
const HASH_CHARS = 8;

export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function qualifyName(server: string, tool: string): string {
  return `${server}${NAME_DELIMITER}${tool}`;
}

/** Inverse of qualifyName for names whose server part holds no `__`. */
export function parseQualifiedName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(NAME_DELIMITER);
  if (at <= 0) return null;
  const server = name.slice(0, at);
  const tool = name.slice(at + NAME_DELIMITER.length);
  if (tool.length === 0) return null;
  return { server, tool };
}

function hashSuffix(server: string, tool: string): string {
  return createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, HASH_CHARS);
}

/** `server__tool`, sanitised; over 64 chars → both parts shortened plus `-<hash of the originals>`. */
export function boundedName(server: string, tool: string): string {
  const base = qualifyName(sanitizeName(server), sanitizeName(tool));
  if (base.length <= MAX_TOOL_NAME_CHARS) return base;
  const suffix = hashSuffix(server, tool);
  const budget = MAX_TOOL_NAME_CHARS - NAME_DELIMITER.length - 1 - suffix.length;
  const keepServer = Math.floor(budget / 2);
  const keepTool = budget - keepServer;
  return `${sanitizeName(server).slice(0, keepServer)}${NAME_DELIMITER}${sanitizeName(tool).slice(0, keepTool)}-${suffix}`;
}

export interface NameNote {
  display: string;
  server: string;
  tool: string;
  reason: "collision" | "sanitized" | "shortened";
}

export class ToolNameRegistry {
  private readonly byDisplay = new Map<string, { server: string; tool: string }>();
  readonly notes: NameNote[] = [];
  private readonly log: (note: NameNote) => void;

  constructor(options: { log?: (note: NameNote) => void } = {}) {
    this.log = options.log ?? (() => {});
  }

  /** Register every server's tools: bare names when unique, qualified names on collision. */
  registerAll(servers: { server: string; tools: string[] }[]): Map<string, { server: string; tool: string }> {
    const counts = new Map<string, number>();
    for (const s of servers)
      for (const t of s.tools) counts.set(sanitizeName(t), (counts.get(sanitizeName(t)) ?? 0) + 1);
    for (const s of servers) {
      for (const tool of s.tools) {
        const bare = sanitizeName(tool);
        if ((counts.get(bare) ?? 0) > 1) this.register(s.server, tool, "collision");
        else {
          if (bare !== tool) this.note({ display: bare, server: s.server, tool, reason: "sanitized" });
          this.byDisplay.set(bare, { server: s.server, tool });
        }
      }
    }
    return new Map(this.byDisplay);
  }

  /** Register one qualified name and return its display form. */
  register(server: string, tool: string, reason: NameNote["reason"] = "collision"): string {
    const display = boundedName(server, tool);
    const plain = qualifyName(server, tool);
    if (display !== plain)
      this.note({ display, server, tool, reason: display.length < plain.length ? "shortened" : "sanitized" });
    else if (reason === "collision") this.note({ display, server, tool, reason });
    this.byDisplay.set(display, { server, tool });
    return display;
  }

  resolve(display: string): { server: string; tool: string } | undefined {
    return this.byDisplay.get(display);
  }

  private note(note: NameNote): void {
    this.notes.push(note);
    this.log(note);
  }
}

/** Problems in a client's combined tool list: collisions of bare names and names over 64 chars. */
export function checkToolNames(servers: { server: string; tools: string[] }[]): {
  collisions: string[];
  tooLong: string[];
} {
  const seen = new Map<string, string[]>();
  for (const s of servers) for (const t of s.tools) seen.set(t, [...(seen.get(t) ?? []), s.server]);
  const collisions = [...seen.entries()]
    .filter(([, owners]) => owners.length > 1)
    .map(([t, owners]) => `${t} (${owners.join(", ")})`);
  const tooLong = servers.flatMap((s) =>
    s.tools.map((t) => qualifyName(s.server, t)).filter((name) => name.length > MAX_TOOL_NAME_CHARS),
  );
  return { collisions, tooLong };
}
