// `pdpp doctor`: check an agent client's MCP config — can each server start, what tools does it
// expose, and do tool names collide or overflow once the client qualifies them.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { PdppError } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import {
  type ClientConfig,
  type ConfiguredServer,
  defaultConfigPaths,
  readClientConfig,
} from "../doctor-config.js";
import {
  analyseToolNames,
  CLIENT_RULES,
  type ClientName,
  groupShared,
  type NameReport,
  type ServerTools,
  sharedExample,
  warningCount,
} from "../doctor-names.js";
import { type ProbeResult, probeServer } from "../doctor-probe.js";

export interface DoctorReport {
  config: ClientConfig;
  probes: ProbeResult[];
  names: NameReport;
  servers: ServerTools[];
}

export async function runDoctor(path: string, options: { timeoutMs: number }): Promise<DoctorReport> {
  const config = readClientConfig(path);
  const probes = await Promise.all(config.servers.map((server) => probeServer(server, options)));
  const servers = probes.flatMap((p) => (p.ok ? [{ server: p.name, tools: p.tools }] : []));
  return { config, probes, names: analyseToolNames(servers), servers };
}

export function formatDoctorReport(report: DoctorReport): string {
  const { config, probes, names } = report;
  const lines = [
    `config: ${config.path} (${config.format}, ${config.servers.length} server${config.servers.length === 1 ? "" : "s"})`,
  ];
  const width = Math.max(4, ...probes.map((p) => p.name.length));
  for (const probe of probes) {
    if (probe.ok) {
      lines.push(
        `  ok    ${probe.name.padEnd(width)}  ${probe.tools.length} tools: ${probe.tools.join(", ")}`,
      );
    } else {
      lines.push(`  FAIL  ${probe.name.padEnd(width)}  ${probe.error}`);
    }
  }
  for (const skipped of config.skipped)
    lines.push(`  skip  ${skipped.name.padEnd(width)}  ${skipped.reason}`);
  for (const duplicate of duplicateServers(config.servers)) {
    lines.push(
      `duplicate: ${duplicate.join(", ")} run the same server (same command, args and env, or URL); keep one`,
    );
  }
  lines.push(...nameLines(report));
  const failures = probes.filter((p) => !p.ok).length;
  const warnings = warningCount(names);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push(
    `result: ${plural(failures, "failing server")}, ${plural(warnings, "name warning")} (${names.long.length} too long, ${names.clashes.length} clashing, ${names.invalid.length + names.badServers.length} refused), ${plural(names.shared.length, "shared tool name")}`,
  );
  return lines.join("\n");
}

/** Shared names (a note), then every warning by client, then the rules of the clients warned about. */
function nameLines(report: DoctorReport): string[] {
  const { names, servers } = report;
  const lines: string[] = [];
  for (const group of groupShared(names.shared)) {
    const example = group.tools.includes("search") ? "search" : group.tools[0];
    lines.push(
      `shared: ${group.servers.join(", ")} all expose ${group.tools.join(", ")}; clients tell them apart by server (${example}: ${sharedExample(example, group.servers, servers)})`,
    );
  }
  const warned = new Set<ClientName>();
  for (const bad of names.badServers) {
    warned.add(bad.client);
    lines.push(`warning (${bad.client}): server ${bad.server}: ${bad.outcome}`);
  }
  for (const long of names.long) {
    warned.add(long.client);
    const shown = long.shownAs === null ? "" : ` to ${long.shownAs}`;
    lines.push(
      `warning (${long.client}): ${long.measured} is ${long.length} chars (limit ${long.limit}): ${long.outcome}${shown}`,
    );
  }
  for (const bad of names.invalid) {
    warned.add(bad.client);
    lines.push(`warning (${bad.client}): ${bad.name}: ${bad.outcome}`);
  }
  for (const clash of names.clashes) {
    warned.add(clash.client);
    const tools = clash.tools.map((t) => `${t.server}/${t.tool}`).join(" and ");
    lines.push(`warning (${clash.client}): ${tools} are both named ${clash.name}: ${clash.outcome}`);
  }
  for (const client of Object.keys(CLIENT_RULES) as ClientName[]) {
    if (warned.has(client)) lines.push(`rule (${client}): ${CLIENT_RULES[client]}`);
  }
  return lines;
}

/** Entries that would start the very same server (a copy-pasted block under a second name). */
export function duplicateServers(servers: ConfiguredServer[]): string[][] {
  const byIdentity = new Map<string, string[]>();
  for (const server of servers) {
    const identity =
      server.transport === "stdio"
        ? JSON.stringify([server.command, server.args, Object.entries(server.env).sort(), server.cwd ?? null])
        : JSON.stringify([server.url, Object.entries(server.headers).sort()]);
    byIdentity.set(identity, [...(byIdentity.get(identity) ?? []), server.name]);
  }
  return [...byIdentity.values()].filter((names) => names.length > 1);
}

export function register(program: Command, _context: CliContext): void {
  program
    .command("doctor")
    .description(
      "check an MCP client config (Claude Desktop JSON, Codex TOML, …): servers, tools, name collisions",
    )
    .option(
      "--config <file>",
      "client config to check (default: the first Claude Desktop / Codex / Cursor / Gemini config found)",
    )
    .option("--timeout <ms>", "per-server time limit", "15000")
    .action(async (options: { config?: string; timeout: string }) => {
      const timeoutMs = Number(options.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 100) {
        throw new PdppError("invalid_request", `--timeout must be an integer number of milliseconds >= 100.`);
      }
      const path = options.config ? resolve(options.config) : defaultConfigPaths().find((p) => existsSync(p));
      if (!path) {
        throw new PdppError("invalid_request", "no MCP client config found; pass --config <file>.");
      }
      const report = await runDoctor(path, { timeoutMs });
      process.stdout.write(`${formatDoctorReport(report)}\n`);
      if (report.probes.some((p) => !p.ok)) process.exitCode = 1;
    });
}
