// `npm run bench -- --hosted --baseline <checkout>`: hosted /mcp throughput of this build against
// another build (e.g. the previous main, in a checkout with its own node_modules and `npm run build`
// done), on the same dataset home, same machine, same run. The two servers take turns, `rounds`
// times each, so a change in the machine's load falls on both; each turn measures the warm mix as a
// 2025 client and, on a build that speaks it, as a 2026-07-28 client. Prints calls/s and server
// CPU-ms per call (all server processes, from /proc) per build and era: medians over the rounds,
// the ratio to the baseline's 2025 figure, and for 2026 the per-round ratio to the same server's
// 2025 turn (the era's own cost, least touched by load).
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { benchHome, cpuSeconds, load, mixKinds, processTree, startServe } from "./hosted.js";
import type { LoadCall } from "./mcp-http-load.js";
import type { BenchRow } from "./measure.js";
import { printRow } from "./measure.js";
import { buildDist } from "./serve-rss.js";

interface Build {
  label: string;
  entry: string;
  eras: ("2025" | "2026")[];
  /** Its own dataset home (same generator and seed), when the builds' indexes differ. */
  home?: { home: string; token: string };
}

interface Turn {
  rate: number;
  cpuMs: number;
  errors: number;
  firstFailure?: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function runHostedAb(options: {
  records: number;
  seed: number;
  baseline: string;
  calls: number;
  rounds: number;
  workers?: number;
  /**
   * A home the baseline made itself (its own search index over the same generated records):
   * needed when this build's migrations rebuild an index the baseline reads differently.
   */
  baselineHome?: string;
}): Promise<BenchRow[]> {
  const baselineEntry = join(options.baseline, "dist", "cli", "main.js");
  if (!existsSync(baselineEntry)) {
    throw new Error(`no ${baselineEntry}: run \`npm ci\` (or npm run build) in ${options.baseline} first`);
  }
  const builds: Build[] = [
    // The baseline may predate 2026-07-28: its 2026 clients would only measure error answers.
    {
      label: `baseline (${options.baseline})`,
      entry: baselineEntry,
      eras: ["2025"],
      home: options.baselineHome
        ? {
            home: options.baselineHome,
            token: readFileSync(join(options.baselineHome, "bench-client-token"), "utf8").trim(),
          }
        : undefined,
    },
    { label: "this build", entry: buildDist(), eras: ["2025", "2026"] },
  ];
  const workers = options.workers ?? availableParallelism();
  const own = await benchHome(options.records, options.seed);
  const turns = new Map<string, Turn[]>();
  const load0 = loadavg()[0];
  for (let round = 0; round < options.rounds; round++) {
    for (const build of builds) {
      const { home, token } = build.home ?? own;
      const server = await startServe(home, { workers, entry: build.entry });
      try {
        const pids = processTree(server.pid);
        const calls: LoadCall[] = (await mixKinds(server.url, token)).flatMap((k) => k.calls);
        // The mix takes its fetch ids from a search: a baseline that finds nothing there (its
        // search index rebuilt by this build's migration: pass --baseline-home) runs other work.
        const mix = calls.map((c) => c.name).join(",");
        if (round === 0) console.log(`${build.label} mix: ${calls.length} calls (${mix})`);
        // Warm-up: V8 and each worker's SQLite page cache (see bench/hosted.ts).
        await load({ url: server.url, token, calls, total: 2000, threads: 2 });
        for (const era of build.eras) {
          let cpu0 = 0;
          const r = await load({
            url: server.url,
            token,
            calls,
            total: options.calls,
            threads: 2,
            era,
            onStart: () => {
              cpu0 = cpuSeconds(pids);
            },
          });
          const n = r.ok + r.failureCount;
          const key = `${build.label}|${era}`;
          const list = turns.get(key) ?? [];
          list.push({
            rate: n / r.seconds,
            cpuMs: ((cpuSeconds(pids) - cpu0) * 1000) / n,
            errors: r.failureCount,
            firstFailure: r.failures[0],
          });
          turns.set(key, list);
          console.log(
            `round ${round + 1} ${build.label}, ${era} client: ${(n / r.seconds).toFixed(0)} calls/s, ${r.failureCount} errors`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  }
  const base = turns.get(`${builds[0].label}|2025`) ?? [];
  const baseRate = median(base.map((t) => t.rate));
  const baseCpu = median(base.map((t) => t.cpuMs));
  const rows: BenchRow[] = [];
  for (const build of builds) {
    for (const era of build.eras) {
      const list = turns.get(`${build.label}|${era}`) ?? [];
      const rate = median(list.map((t) => t.rate));
      const cpuMs = median(list.map((t) => t.cpuMs));
      const errors = list.reduce((n, t) => n + t.errors, 0);
      // The era's own cost: each round's 2026 turn against the same server's 2025 turn just before.
      const same2025 = turns.get(`${build.label}|2025`) ?? [];
      const paired =
        era === "2026"
          ? `; paired with this build's 2025 turn of each round: ${median(list.map((t, i) => t.rate / same2025[i].rate)).toFixed(2)} calls/s, ${median(list.map((t, i) => t.cpuMs / same2025[i].cpuMs)).toFixed(2)} CPU/call`
          : "";
      const row: BenchRow = {
        backend: "sqlite",
        scenario: `hosted A/B, ${build.label}, ${era === "2025" ? "2025-11-25" : "2026-07-28"} client, c=32 mix`,
        p50_ms: Number.NaN,
        p95_ms: Number.NaN,
        runs: list.length,
        target: "≥ 0.9 × baseline",
        note:
          `${rate.toFixed(0)} calls/s (rounds: ${list.map((t) => t.rate.toFixed(0)).join(", ")}), ` +
          `${cpuMs.toFixed(2)} server CPU-ms/call, ${errors} errors; ` +
          `ratio to baseline 2025: ${(rate / baseRate).toFixed(2)} calls/s, ${(cpuMs / baseCpu).toFixed(2)} CPU/call${paired}; ` +
          `load ${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}` +
          (list.find((t) => t.firstFailure)
            ? `; first failure: ${list.find((t) => t.firstFailure)?.firstFailure}`
            : ""),
      };
      printRow(row);
      rows.push(row);
    }
  }
  return rows;
}
