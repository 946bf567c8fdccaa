// `pdpp serve` idle RSS: init a temp home, spawn the server (checkout path through tsx, and the
// compiled build), wait for its URL line plus a settle delay, then read VmRSS from /proc.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
/**
 * The compiled build is laid out as an installed package (package.json + dist/ + node_modules) under
 * bench/data/ (git-ignored), never over the work tree's dist/: the build reads ../../package.json.
 */
const PACKAGE_DIR = join(ROOT, "bench", "data", "pkg");
const SETTLE_MS = 2000;

export interface RssSample {
  label: string;
  /** Spawn to the printed URL line. */
  startupMs: number;
  rssMb: number;
  /** Peak RSS of the process so far (VmHWM), for context. */
  peakMb: number;
}

function vm(pid: number, key: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const line = status.split("\n").find((l) => l.startsWith(`${key}:`));
  return line ? Number(line.replace(/\D+/g, "")) / 1024 : Number.NaN; // kB → MB
}

/** Spawn `args`, wait for the `url:` line, settle, sample, stop. */
async function sampleServe(label: string, options: { args: string[]; home: string }): Promise<RssSample> {
  const { args, home } = options;
  const started = performance.now();
  const child = spawn(process.execPath, [...args, "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, PDPP_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`${label}: no url line in 60 s; ${stderr}`)), 60_000);
      child.stdout.on("data", (chunk) => {
        out += chunk;
        if (/^url: +http/m.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`${label}: exited ${code}: ${stderr}`)));
    });
    const startupMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const pid = child.pid as number;
    return { label, startupMs, rssMb: vm(pid, "VmRSS"), peakMb: vm(pid, "VmHWM") };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)));
  }
}

/** Compile src/ into PACKAGE_DIR/dist (type errors elsewhere in a work tree still emit JS). */
function buildDist(): string {
  rmSync(PACKAGE_DIR, { recursive: true, force: true });
  mkdirSync(PACKAGE_DIR, { recursive: true });
  copyFileSync(join(ROOT, "package.json"), join(PACKAGE_DIR, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(PACKAGE_DIR, "node_modules"));
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const outDir = join(PACKAGE_DIR, "dist");
  spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", outDir], {
    cwd: ROOT,
    stdio: "ignore",
  });
  const main = join(outDir, "cli", "main.js");
  if (!existsSync(main)) throw new Error(`the build produced no ${main}`);
  return main;
}

export async function measureServeIdleRss(): Promise<RssSample[]> {
  const home = mkdtempSync(join(tmpdir(), "pdpp-bench-home-"));
  try {
    const init = spawnSync(process.execPath, ["bin/pdpp.js", "init"], {
      cwd: ROOT,
      env: { ...process.env, PDPP_HOME: home },
      encoding: "utf8",
    });
    if (init.status !== 0) throw new Error(`pdpp init failed: ${init.stderr}`);
    const samples = [await sampleServe("checkout (bin/pdpp.js → tsx)", { args: ["bin/pdpp.js"], home })];
    samples.push(await sampleServe("compiled (dist/cli/main.js)", { args: [buildDist()], home }));
    return samples;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
