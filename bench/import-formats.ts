// Import throughput of every format on generated ≥100 MB inputs (bench/import-inputs.ts), each import in
// its own process so its peak RSS is its own: records per CPU-second (every thread) through importFile as
// `pdpp import` runs it in-process (batches straight to the store, prepared ops on SQLite), loaded from the
// compiled build as users run it (bench/import-child.ts; `npm run build` first), beside the
// same-run raw-SQL floor (import-floor.ts: the stored rows replayed with cached statements) and, for the
// agent logs, the same records imported through the `jsonl` importer (the reference), with ratios.
// Usage: tsx bench/import-formats.ts [--mb 100] [--only claude-code,codex,…] [--generate]
// (PDPP_BENCH_DIST=dir: import through that build of the sources instead of dist/)
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Manifest } from "../src/core/manifest.js";
import { findFormat } from "../src/importers/registry.js";
import { DEFAULT_BATCH_CHARS, DEFAULT_BATCH_SIZE } from "../src/importers/run-import.js";
import { replayFloor } from "./import-floor.js";
import { BENCH_FORMATS, benchInput } from "./import-inputs.js";
import { JSONL_BENCH_MANIFEST } from "./import-jsonl.js";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "100" },
    only: { type: "string", default: Object.keys(BENCH_FORMATS).join(",") },
    generate: { type: "boolean", default: false },
  },
});

const AGENT_LOGS = new Set(["claude-code", "codex", "claude"]);

async function inputBytes(path: string): Promise<number> {
  const s = await stat(path);
  if (!s.isDirectory()) return s.size;
  let n = 0;
  for (const name of await readdir(path, { recursive: true })) {
    const st = await stat(join(path, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

/** Write each stream's records of `kind`'s input as JSONL (what the reference imports). */
async function writeReferenceFiles(kind: string, path: string, out: string): Promise<Manifest> {
  const source = await findFormat(kind).open(path, BENCH_FORMATS[kind]!);
  mkdirSync(out, { recursive: true });
  const files = new Map<string, ReturnType<typeof createWriteStream>>();
  for (const stream of source.manifest.streams) {
    files.set(stream.name, createWriteStream(join(out, `${stream.name}.jsonl`)));
  }
  for await (const item of source.items) {
    if (!("data" in item)) continue;
    const file = files.get(item.stream)!;
    if (!file.write(`${JSON.stringify(item.data)}\n`)) {
      await new Promise<void>((resolve) => file.once("drain", () => resolve()));
    }
  }
  for (const file of files.values()) await new Promise<void>((resolve) => file.end(resolve));
  return source.manifest;
}

// The V8 settings bin/pdpp.js starts `pdpp import` with.
const { IMPORT_NODE_FLAGS } = (await import(
  pathToFileURL(join(import.meta.dirname, "..", "bin", "import-flags.js")).href
)) as { IMPORT_NODE_FLAGS: string[] };

/** One measured import in its own process, as `pdpp import` runs: the compiled build (import-child.ts). */
function runChild(options: Record<string, unknown>): Record<string, unknown> {
  const child = join(import.meta.dirname, "import-child.ts");
  const r = spawnSync(process.execPath, [...IMPORT_NODE_FLAGS, child, JSON.stringify(options)], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`child ${options.mode} ${options.kind} exited ${r.status}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

/** `run`'s stored rows replayed as the raw-SQL floor; the child's store is removed after. */
function floorOf(run: Record<string, unknown>): { rows: number; cpuSeconds: number } {
  try {
    return replayFloor(run.dbPath as string, { size: DEFAULT_BATCH_SIZE, chars: DEFAULT_BATCH_CHARS });
  } finally {
    rmSync(run.dir as string, { recursive: true, force: true });
  }
}

// The build is brought up to date first (incremental, ~2 s when nothing changed), unless the imports
// run another build (PDPP_BENCH_DIST, bench/import-child.ts).
if (!values.generate && !process.env.PDPP_BENCH_DIST) {
  const built = spawnSync(process.execPath, [join(import.meta.dirname, "..", "scripts", "build.mjs")], {
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("npm run build failed");
}
const mb = Number(values.mb);
const rows: Record<string, unknown>[] = [];
for (const kind of values.only!.split(",")) {
  const path = await benchInput(kind, mb);
  if (values.generate) {
    process.stdout.write(`${kind}: ${path}\n`);
    continue;
  }
  const run = runChild({
    mode: "import",
    kind,
    path,
    flags: BENCH_FORMATS[kind]!.flags,
    manifest: kind === "jsonl" ? JSONL_BENCH_MANIFEST : undefined,
  });
  const floor = floorOf(run);
  const perCpu = (run.records as number) / (run.cpuSeconds as number);
  const floorPerCpu = floor.rows / floor.cpuSeconds;
  const row: Record<string, unknown> = {
    importer: kind,
    input_mb: Number(((await inputBytes(path)) / 1024 ** 2).toFixed(1)),
    records: run.records,
    rejected: run.rejected,
    cpu_s: Number((run.cpuSeconds as number).toFixed(2)),
    wall_s: Number((run.seconds as number).toFixed(2)),
    records_per_cpu_s: Math.round(perCpu),
    floor_records_per_cpu_s: Math.round(floorPerCpu),
    ratio_to_floor: Number((floorPerCpu / perCpu).toFixed(2)),
    peak_rss_mb: Math.round(run.peakRssMb as number),
    // The main thread's: a worker's heap is in the RSS only.
    peak_heap_mb: Math.round(run.heapTotalMb as number),
    peak_external_mb: Math.round(run.externalMb as number),
    load_1m: Number((run.load as number).toFixed(1)),
  };
  if (AGENT_LOGS.has(kind)) {
    const refDir = join(tmpdir(), `pdpp-bench-ref-${kind}-${process.pid}`);
    try {
      const manifest = await writeReferenceFiles(kind, path, refDir);
      const ref = runChild({ mode: "jsonl-ref", kind, path: refDir, manifest });
      rmSync(ref.dir as string, { recursive: true, force: true });
      const refPerCpu = (ref.records as number) / (ref.cpuSeconds as number);
      row.jsonl_records_per_cpu_s = Math.round(refPerCpu);
      row.ratio_to_jsonl = Number((perCpu / refPerCpu).toFixed(2));
      row.jsonl_peak_rss_mb = Math.round(ref.peakRssMb as number);
    } finally {
      rmSync(refDir, { recursive: true, force: true });
    }
  }
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
}
if (rows.length > 0) {
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(
    join(import.meta.dirname, "results", `import-formats-${mb}mb.json`),
    `${JSON.stringify({ at: new Date().toISOString(), loadavg: loadavg(), rows }, null, 2)}\n`,
  );
}
