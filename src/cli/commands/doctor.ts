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
import { analyseToolNames, groupCollisions, type NameReport } from "../doctor-names.js";
import { type ProbeResult, probeServer } from "../doctor-probe.js";

export interface DoctorReport {
  config: ClientConfig;
  probes: ProbeResult[];
  names: NameReport;
}

export async function runDoctor(path: string, options: { timeoutMs: number }): Promise<DoctorReport> {
  const config = readClientConfig(path);
  const probes = await Promise.all(config.servers.map((server) => probeServer(server, options)));
  const names = analyseToolNames(probes.flatMap((p) => (p.ok ? [{ server: p.name, tools: p.tools }] : [])));
  return { config, probes, names };
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
  for (const group of groupCollisions(names.collisions)) {
    lines.push(
      `collision: ${group.servers.join(", ")} all expose ${group.tools.join(", ")}; clients tell them apart only by server name (${group.example.join(", ")})`,
    );
  }
  for (const long of names.overLong) {
    lines.push(
      `long name: ${long.qualified} is ${long.length} chars (> ${long.limit}); clients shorten it to ${long.shortened}`,
    );
  }
  for (const note of names.notes) lines.push(`note: ${note}`);
  const failures = probes.filter((p) => !p.ok).length;
  const warnings = names.collisions.length + names.overLong.length;
  lines.push(
    `result: ${failures} failing server${failures === 1 ? "" : "s"}, ${warnings} name warning${warnings === 1 ? "" : "s"} (${names.collisions.length} shared tool name${names.collisions.length === 1 ? "" : "s"}, ${names.overLong.length} too long)`,
  );
  return lines.join("\n");
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
