// Import throughput: streams an mbox into a temp SQLite store the way `pdpp import mbox` does (batches
// straight to the store in-process) and prints messages/s, MB/s and peak RSS, beside the same-run raw-SQL
// floor (import-floor.ts: the stored rows replayed) and the ratio, in wall and CPU time. Usage: tsx bench/import-mbox.ts --file F
// [--batch-size N] [--in-thread] [--keep]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hashToken, newToken } from "../src/core/ids.js";
import { importFile } from "../src/importers/import-file.js";
import { DEFAULT_BATCH_CHARS, DEFAULT_BATCH_SIZE } from "../src/importers/run-import.js";
import { createApp } from "../src/rs/app.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { replayFloor } from "./import-floor.js";

const { values } = parseArgs({
  options: {
    file: { type: "string", default: "bench/data/bench.mbox" },
    "batch-size": { type: "string", default: String(DEFAULT_BATCH_SIZE) },
    keep: { type: "boolean", default: false },
    // A/B switch: parse on the main thread (no worker), as before the worker existed.
    "in-thread": { type: "boolean", default: false },
  },
});

/** CPU seconds of the main thread alone (Linux /proc; null elsewhere). */
function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-import-"));
const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
const ownerToken = newToken("owner");
await store.putOwnerToken(hashToken(ownerToken));
const app = createApp({ store });

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
const loadBefore = loadavg()[0]!;
const cpuBefore = process.cpuUsage();
const mainCpuBefore = mainThreadCpuSeconds();
const started = performance.now();
let lastLog = started;
const result = await importFile(
  {
    fetch: async (r) => app.fetch(r),
    baseUrl: "http://127.0.0.1",
    ownerToken,
    ingest: (id, stream, ops) => store.applyBatch(id, stream, ops),
  },
  {
    kind: "mbox",
    path: values.file!,
    connectionLabel: "Bench mail",
    batchSize: Number(values["batch-size"]),
    parseInWorker: !values["in-thread"],
    onProgress: (p) => {
      const now = performance.now();
      if (now - lastLog > 10_000) {
        lastLog = now;
        const secs = (now - started) / 1000;
        process.stderr.write(
          `  ${p.read} msgs, ${(p.bytesRead / 1024 ** 2).toFixed(0)} MB, ${(p.read / secs).toFixed(0)} msgs/s, rss ${(process.memoryUsage().rss / 1024 ** 2).toFixed(0)} MB\n`,
        );
      }
    },
  },
);
const seconds = (performance.now() - started) / 1000;
const loadAfter = loadavg()[0]!;
const cpu = process.cpuUsage(cpuBefore);
// Main-thread CPU: with parsing in a worker, the main thread (RS + SQLite writes) is the ceiling.
const mainCpu = mainThreadCpuSeconds();
const mainCpuSeconds = mainCpu === null || mainCpuBefore === null ? null : mainCpu - mainCpuBefore;
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
await store.close();
// The same-run floor: the rows this import stored, replayed as raw SQL in batches closed by the same rule.
const floor = replayFloor(join(dir, "pdpp.db"), {
  size: Number(values["batch-size"]),
  chars: DEFAULT_BATCH_CHARS,
});

const { size } = await import("node:fs").then((fs) => fs.statSync(values.file!));
const row = {
  scenario: "import mbox (sqlite, in-process, batches straight to the store)",
  file_mb: Number((size / 1024 ** 2).toFixed(1)),
  messages: result.read,
  added: result.added,
  rejected: result.rejected,
  seconds: Number(seconds.toFixed(2)),
  messages_per_s: Math.round(result.read / seconds),
  mb_per_s: Number((size / 1024 ** 2 / seconds).toFixed(1)),
  peak_rss_mb: Math.round(peakRss / 1024 ** 2),
  // The machine is shared: CPU seconds (all threads) and the load average say how much of it we had.
  cpu_seconds: Number(cpuSeconds.toFixed(2)),
  messages_per_cpu_s: Math.round(result.read / cpuSeconds),
  main_thread_cpu_s: mainCpuSeconds === null ? null : Number(mainCpuSeconds.toFixed(2)),
  messages_per_main_cpu_s: mainCpuSeconds === null ? null : Math.round(result.read / mainCpuSeconds),
  floor_messages_per_s: Math.round(floor.rows / floor.seconds),
  ratio: Number((seconds / floor.seconds).toFixed(2)),
  floor_messages_per_cpu_s: Math.round(floor.rows / floor.cpuSeconds),
  cpu_ratio: Number((cpuSeconds / floor.cpuSeconds).toFixed(2)),
  load_avg_1m: [Number(loadBefore.toFixed(1)), Number(loadAfter.toFixed(1))],
  batch_size: Number(values["batch-size"]),
  parse_in_worker: !values["in-thread"],
};
process.stdout.write(`${JSON.stringify(row, null, 2)}\n`);
mkdirSync("bench/results", { recursive: true });
writeFileSync(join("bench/results", "import-mbox.json"), `${JSON.stringify(row, null, 2)}\n`);
if (!values.keep) rmSync(dir, { recursive: true, force: true });
