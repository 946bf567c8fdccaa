// Test plumbing: spawn the real `pdpp` CLI (node bin/pdpp.js) against a temporary home.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dirname, "..", "..");
export const BIN = join(REPO_ROOT, "bin", "pdpp.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh temporary directory; `cleanup` removes it. */
export function tempDir(prefix = "pdpp-cli-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Environment for a CLI child: PDPP_HOME set, no inherited pdpp credentials or database. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PDPP_HOME: home, ...extra };
  for (const key of ["PDPP_TOKEN", "PDPP_DATABASE_URL", "PDPP_PROVIDER_URL", "PDPP_DEBUG"]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

/** Run `pdpp <args>` to completion. */
export function runPdpp(
  args: string[],
  options: { home: string; env?: Record<string, string>; cwd?: string },
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: cliEnv(options.home, options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Assert-friendly: the single stderr line of a failed command. */
export function errorLines(result: CliResult): string[] {
  return result.stderr.split("\n").filter((line) => line.length > 0);
}

/** Resolve with stdout once `pattern` shows up in it (or reject when the process exits first). */
export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = pattern.exec(stdout);
      if (match) resolve(match);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("exit", (code) =>
      reject(new Error(`serve exited (${code}) before printing: ${stderr}${stdout}`)),
    );
  });
}
