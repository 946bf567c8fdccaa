// Import throughput of every format on generated ≥100 MB inputs (bench/import-inputs.ts), each import in
// its own process so its peak RSS is its own: records per CPU-second (every thread) through importFile as
// `pdpp import` runs it in-process (batches straight to the store, prepared ops on SQLite), beside the
// same-run raw-SQL floor (import-floor.ts: the stored rows replayed with cached statements) and, for the
// agent logs, the same records imported through the `jsonl` importer (the reference), with ratios.
// Usage: tsx bench/import-formats.ts [--mb 100] [--only claude-code,codex,…] [--generate]
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hashToken, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import { importFile } from "../src/importers/import-file.js";
import type { OwnerApi } from "../src/importers/owner-sink.js";
import { findFormat } from "../src/importers/registry.js";
import { DEFAULT_BATCH_CHARS, DEFAULT_BATCH_SIZE } from "../src/importers/run-import.js";
import { createApp } from "../src/rs/app.js";
import { openSqliteStore, preparedIngestOf } from "../src/store/sqlite/sqlite-store.js";
import { replayFloor } from "./import-floor.js";
import { BENCH_FORMATS, benchInput } from "./import-inputs.js";
import { JSONL_BENCH_MANIFEST } from "./import-jsonl.js";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "100" },
    only: { type: "string", default: Object.keys(BENCH_FORMATS).join(",") },
    generate: { type: "boolean", default: false },
    // Internal: run one measurement in this process and print its JSON.
    child: { type: "string" },
    kind: { type: "string" },
    path: { type: "string" },
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

/** A fresh SQLite store and the OwnerApi the CLI gives importers (cli/context.ts). */
async function openBenchStore(dir: string) {
  const path = join(dir, "pdpp.db");
  const store = await openSqliteStore({ path });
  const ownerToken = newToken("owner");
  await store.putOwnerToken(hashToken(ownerToken));
  const app = createApp({ store });
  const api: OwnerApi = {
    fetch: async (r) => app.fetch(r),
    baseUrl: "http://127.0.0.1",
    ownerToken,
    ingest: (id, stream, ops) => store.applyBatch(id, stream, ops),
    ingestPrepared: preparedIngestOf(store),
  };
  return { store, api, path };
}

const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

/** One import of `kind` from `path` into a fresh store, then the raw-SQL replay of what it stored. */
async function measureImport(kind: string, path: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-formats-"));
  try {
    const { store, api, path: dbPath } = await openBenchStore(dir);
    const load = loadavg()[0]!;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const manifest = kind === "jsonl" ? { manifest: JSONL_BENCH_MANIFEST } : undefined;
    const result = await importFile(api, {
      kind,
      path,
      flags: BENCH_FORMATS[kind]!.flags,
      generic: manifest,
    });
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSince(cpu);
    // The process's peak so far: the import ran first, before the floor holds its rows.
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    await store.close();
    const floor = replayFloor(dbPath, { size: DEFAULT_BATCH_SIZE, chars: DEFAULT_BATCH_CHARS });
    return {
      records: result.read,
      rejected: result.rejected,
      seconds,
      cpuSeconds,
      peakRssMb,
      floorRows: floor.rows,
      floorCpuSeconds: floor.cpuSeconds,
      load,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The reference: the same records, one JSONL file per stream, through the `jsonl` importer. */
async function measureJsonlReference(kind: string, dirOfFiles: string): Promise<Record<string, unknown>> {
  const manifest = (await findFormat(kind).open(await benchInput(kind, Number(values.mb)), {})).manifest;
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-formats-"));
  try {
    const { store, api } = await openBenchStore(dir);
    let records = 0;
    const cpu = process.cpuUsage();
    for (const stream of manifest.streams) {
      const file = join(dirOfFiles, `${stream.name}.jsonl`);
      const result = await importFile(api, {
        kind: "jsonl",
        path: file,
        connectionLabel: "Reference",
        generic: { manifest, stream: stream.name },
      });
      records += result.read;
    }
    const cpuSeconds = cpuSince(cpu);
    await store.close();
    return { records, cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

function runChild(args: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, ["--import", "tsx", "bench/import-formats.ts", ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`child ${args.join(" ")} exited ${r.status}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

if (values.child === "import") {
  process.stdout.write(`${JSON.stringify(await measureImport(values.kind!, values.path!))}\n`);
} else if (values.child === "jsonl-ref") {
  process.stdout.write(`${JSON.stringify(await measureJsonlReference(values.kind!, values.path!))}\n`);
} else {
  const mb = Number(values.mb);
  const rows: Record<string, unknown>[] = [];
  for (const kind of values.only!.split(",")) {
    const path = await benchInput(kind, mb);
    if (values.generate) {
      process.stdout.write(`${kind}: ${path}\n`);
      continue;
    }
    const run = runChild(["--child", "import", "--kind", kind, "--path", path, "--mb", String(mb)]);
    const perCpu = (run.records as number) / (run.cpuSeconds as number);
    const floorPerCpu = (run.floorRows as number) / (run.floorCpuSeconds as number);
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
      load_1m: Number((run.load as number).toFixed(1)),
    };
    if (AGENT_LOGS.has(kind)) {
      const refDir = join(tmpdir(), `pdpp-bench-ref-${kind}-${process.pid}`);
      try {
        await writeReferenceFiles(kind, path, refDir);
        const ref = runChild(["--child", "jsonl-ref", "--kind", kind, "--path", refDir, "--mb", String(mb)]);
        const refPerCpu = (ref.records as number) / (ref.cpuSeconds as number);
        row.jsonl_records_per_cpu_s = Math.round(refPerCpu);
        row.ratio_to_jsonl = Number((perCpu / refPerCpu).toFixed(2));
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
}
