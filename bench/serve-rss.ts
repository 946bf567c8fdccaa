// `pdpp serve` RSS: idle at start (a temp home; the sources through tsx, and the compiled build), and
// after a burst of reads on a dataset home, then after an idle settle (VmRSS from /proc).
// Run alone: tsx bench/serve-rss.ts [--records 100000] [--requests 2000] [--settle 60]
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

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
async function sampleServe(
  label: string,
  options: { args: string[]; home: string; env?: Record<string, string> },
): Promise<RssSample> {
  const { args, home } = options;
  const started = performance.now();
  const child = spawn(process.execPath, [...args, "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, PDPP_HOME: home, ...options.env },
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
export function buildDist(): string {
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
    const samples = [
      await sampleServe("sources through tsx (bin/pdpp.js, PDPP_DEV=1)", {
        args: ["bin/pdpp.js"],
        home,
        env: { PDPP_DEV: "1" },
      }),
    ];
    samples.push(await sampleServe("compiled (dist/cli/main.js)", { args: [buildDist()], home }));
    return samples;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export interface RssAfterLoad {
  requests: number;
  errors: number;
  startMb: number;
  afterLoadMb: number;
  settledMb: number;
  settleSeconds: number;
  /** RSS (MB) every 5 s of the idle settle. */
  trace: number[];
}

/**
 * `pdpp serve --workers 1` on a dataset home: RSS at start, right after a burst of reads with large
 * answers (pages of 100 full records, searches, record fetches; `concurrency` clients), and after
 * `settleSeconds` of idle — the server should give its page cache and heap back (src/server-idle.ts).
 */
export async function measureServeRssAfterLoad(options: {
  home: string;
  token: string;
  requests: number;
  concurrency: number;
  settleSeconds: number;
}): Promise<RssAfterLoad> {
  const child = spawn(
    process.execPath,
    ["bin/pdpp.js", "--home", options.home, "serve", "--port", "0", "--workers", "1"],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const m = /^url: +(\S+)/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`pdpp serve exited ${code}`)));
    });
    const pid = child.pid as number;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const startMb = vm(pid, "VmRSS");
    const headers = { authorization: `Bearer ${options.token}` };
    const paths = [
      "/v1/streams/messages/records?limit=100",
      "/v1/search?q=invoice&limit=50",
      "/v1/search?q=meeting%20notes&limit=50",
      "/v1/streams/messages/records?limit=100&count=exact",
    ];
    let next = 0;
    let errors = 0;
    const client = async () => {
      while (next < options.requests) {
        const i = next++;
        const response = await fetch(`${url}${paths[i % paths.length]}`, { headers });
        await response.arrayBuffer();
        if (!response.ok) errors++;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, client));
    const afterLoadMb = vm(pid, "VmRSS");
    // Sampled every 5 s while idle: when memory comes back matters as much as how much.
    const trace: number[] = [];
    for (let waited = 0; waited < options.settleSeconds; waited += 5) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(5, options.settleSeconds - waited) * 1000));
      trace.push(Math.round(vm(pid, "VmRSS")));
    }
    return {
      trace,
      requests: options.requests,
      errors,
      startMb,
      afterLoadMb,
      settledMb: vm(pid, "VmRSS"),
      settleSeconds: options.settleSeconds,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)));
  }
}

/** A home with the bench dataset (bench/data/rss-home-N, built once) and a client token for it. */
export async function rssBenchHome(records: number): Promise<{ home: string; token: string }> {
  const home = join(ROOT, "bench", "data", `rss-home-${records}`);
  const tokenFile = join(home, "bench-client-token");
  if (!existsSync(tokenFile)) {
    rmSync(home, { recursive: true, force: true });
    const init = spawnSync(process.execPath, ["bin/pdpp.js", "--home", home, "init"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (init.status !== 0) throw new Error(`pdpp init failed: ${init.stderr}`);
    const { openSqliteStore } = await import("../src/store/sqlite/sqlite-store.js");
    const { generateDataset, grantEverything } = await import("./dataset.js");
    const store = await openSqliteStore({ path: join(home, "pdpp.db") });
    await generateDataset(store, { records, seed: 7, hugeFieldsMb: [] });
    const token = await grantEverything(store, "bench-rss");
    await store.close();
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  }
  return { home, token: readFileSync(tokenFile, "utf8").trim() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      records: { type: "string", default: "100000" },
      requests: { type: "string", default: "2000" },
      settle: { type: "string", default: "60" },
    },
  });
  const { home, token } = await rssBenchHome(Number(values.records));
  const r = await measureServeRssAfterLoad({
    home,
    token,
    requests: Number(values.requests),
    concurrency: 8,
    settleSeconds: Number(values.settle),
  });
  process.stdout.write(
    `serve RSS (sqlite, ${values.records} records, 1 worker): start ${r.startMb.toFixed(0)} MB, after ${r.requests} reads ${r.afterLoadMb.toFixed(0)} MB (${r.errors} errors), after ${r.settleSeconds} s idle ${r.settledMb.toFixed(0)} MB (every 5 s: ${r.trace.join(" ")}); target ≤ 160 MB; load ${loadavg()[0]!.toFixed(1)}\n`,
  );
}
