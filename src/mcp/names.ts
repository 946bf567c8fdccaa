// Qualified MCP tool names next to other servers (30-mcp.md, seeds/004): `server__tool` only on
// collision, sanitised to [A-Za-z0-9_-], ≤ 64 chars with a stable hash suffix, resolved through a
// registry (never by reverse-parsing a shortened name), with a note whenever a fallback applies.
import { createHash } from "node:crypto";

export const NAME_DELIMITER = "__";
export const MAX_TOOL_NAME_CHARS = 64;
const HASH_CHARS = 8;

/** Every code point outside [A-Za-z0-9_-] becomes one `_` (an emoji is one code point, one `_`). */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/gu, "_");
}

/**
 * The server part of a qualified name: sanitised, with no `__` inside and no trailing `_`, so the
 * first `__` of `server__tool` is always the delimiter and parse gives back exactly the tool part.
 */
export function sanitizeServer(server: string): string {
  const clean = sanitizeName(server).replace(/_{2,}/g, "_").replace(/_+$/, "");
  return clean.length > 0 ? clean : "mcp";
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

/** `name-<hash>` within 64 chars (the name shortened to make room). */
function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, MAX_TOOL_NAME_CHARS - 1 - suffix.length)}-${suffix}`;
}

/** `server__tool`, sanitised; over 64 chars → both parts shortened plus `-<hash of the originals>`. */
export function boundedName(server: string, tool: string): string {
  const base = qualifyName(sanitizeServer(server), sanitizeName(tool));
  if (base.length <= MAX_TOOL_NAME_CHARS) return base;
  const suffix = hashSuffix(server, tool);
  const budget = MAX_TOOL_NAME_CHARS - NAME_DELIMITER.length - 1 - suffix.length;
  const keepServer = Math.floor(budget / 2);
  const keepTool = budget - keepServer;
  const serverPart = sanitizeServer(server).slice(0, keepServer).replace(/_+$/, "") || "mcp";
  return `${serverPart}${NAME_DELIMITER}${sanitizeName(tool).slice(0, keepTool)}-${suffix}`;
}

/** A bare (unqualified) tool name: sanitised; over 64 chars → shortened plus a stable hash suffix. */
export function boundedBareName(server: string, tool: string): string {
  const bare = sanitizeName(tool);
  return bare.length <= MAX_TOOL_NAME_CHARS ? bare : withSuffix(bare, hashSuffix(server, tool));
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

  /**
   * Register every server's tools: bare names when no other server has the same (sanitised) name,
   * qualified names when one does. Two tools that still land on one display name (`a.b` and `a_b`
   * on one server) are told apart by a hash suffix on each whose display differs from its own
   * name, so no tool is lost and the choice does not depend on listing order.
   */
  registerAll(servers: { server: string; tools: string[] }[]): Map<string, { server: string; tool: string }> {
    const serversOf = new Map<string, Set<string>>();
    for (const s of servers)
      for (const t of s.tools) {
        const bare = sanitizeName(t);
        serversOf.set(bare, (serversOf.get(bare) ?? new Set()).add(s.server));
      }
    const planned = new Map<string, { display: string; plain: string; server: string; tool: string }>();
    for (const s of servers) {
      for (const tool of s.tools) {
        const shared = (serversOf.get(sanitizeName(tool))?.size ?? 0) > 1;
        const display = shared ? boundedName(s.server, tool) : boundedBareName(s.server, tool);
        const plain = shared ? qualifyName(s.server, tool) : tool;
        planned.set(`${s.server}\u0000${tool}`, { display, plain, server: s.server, tool });
      }
    }
    const byDisplay = new Map<string, number>();
    for (const p of planned.values()) byDisplay.set(p.display, (byDisplay.get(p.display) ?? 0) + 1);
    for (const p of planned.values()) {
      let display = p.display;
      if ((byDisplay.get(display) ?? 0) > 1 && display !== p.plain)
        display = withSuffix(display, hashSuffix(p.server, p.tool));
      this.byDisplay.set(display, { server: p.server, tool: p.tool });
      if (display !== p.plain) {
        const reason = display.length < p.plain.length ? "shortened" : "sanitized";
        this.note({ display, server: p.server, tool: p.tool, reason });
      } else if (p.plain !== p.tool)
        this.note({ display, server: p.server, tool: p.tool, reason: "collision" });
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
