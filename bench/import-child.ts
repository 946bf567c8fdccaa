// One measured import of bench/import-formats.ts, in its own process and through the compiled build
// (dist/, what `pdpp` runs for users: bin/pdpp.js), so its CPU and peak RSS are an installed pdpp's,
// not those of the sources under tsx (+135-155 MB RSS at start, and their transform). Run by plain
// `node` (its types are stripped), it loads nothing of src/: every module comes from dist/.
// Prints one JSON line. Usage (internal): node bench/import-child.ts <json options>
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

type ImportFileModule = typeof import("../src/importers/import-file.js");
type IdsModule = typeof import("../src/core/ids.js");
type AppModule = typeof import("../src/rs/app.js");
type SqliteModule = typeof import("../src/store/sqlite/sqlite-store.js");
type Manifest = import("../src/core/manifest.js").Manifest;
type OwnerApi = import("../src/importers/owner-sink.js").OwnerApi;

interface ChildOptions {
  /** "import": one import of `kind` from `path`; "jsonl-ref": each stream's file of `path` through jsonl. */
  mode: "import" | "jsonl-ref";
  kind: string;
  path: string;
  flags?: Record<string, unknown>;
  /** jsonl: the manifest of the file; jsonl-ref: the manifest of `kind` whose streams are the files. */
  manifest?: Manifest;
}

// PDPP_BENCH_DIST: another build of the sources (an A/B against a build kept aside), else dist/.
const distDir = process.env.PDPP_BENCH_DIST ?? join(import.meta.dirname, "..", "dist");
const dist = <T>(path: string): Promise<T> => import(pathToFileURL(join(distDir, path)).href) as Promise<T>;

const options = JSON.parse(process.argv[2]!) as ChildOptions;
const { importFile } = await dist<ImportFileModule>("importers/import-file.js");
const { hashToken, newToken } = await dist<IdsModule>("core/ids.js");
const { createApp } = await dist<AppModule>("rs/app.js");
const { openSqliteStore, preparedIngestOf } = await dist<SqliteModule>("store/sqlite/sqlite-store.js");

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

// The store is left in `dir` for the parent, which replays it as the floor and removes it.
const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-formats-"));
const { store, api, path: dbPath } = await openBenchStore(dir);
// Where the peak comes from: the largest V8 heap (live and garbage not yet collected) and memory
// outside it (read buffers) seen, sampled whenever the event loop turns (SQLite's commits hold it).
const peaks = { heapTotalMb: 0, externalMb: 0 };
const sample = setInterval(() => {
  const m = process.memoryUsage();
  peaks.heapTotalMb = Math.max(peaks.heapTotalMb, m.heapTotal / 2 ** 20);
  peaks.externalMb = Math.max(peaks.externalMb, m.external / 2 ** 20);
}, 20);
const load = loadavg()[0]!;
const cpu = process.cpuUsage();
const started = performance.now();
let records = 0;
let rejected = 0;
if (options.mode === "import") {
  const result = await importFile(api, {
    kind: options.kind,
    path: options.path,
    flags: options.flags,
    generic: options.manifest ? { manifest: options.manifest } : undefined,
  });
  records = result.read;
  rejected = result.rejected;
} else {
  for (const stream of options.manifest!.streams) {
    const result = await importFile(api, {
      kind: "jsonl",
      path: join(options.path, `${stream.name}.jsonl`),
      connectionLabel: "Reference",
      generic: { manifest: options.manifest, stream: stream.name },
    });
    records += result.read;
    rejected += result.rejected;
  }
}
const seconds = (performance.now() - started) / 1000;
const cpuSeconds = cpuSince(cpu);
const peakRssMb = process.resourceUsage().maxRSS / 1024;
clearInterval(sample);
await store.close();
process.stdout.write(
  `${JSON.stringify({ records, rejected, seconds, cpuSeconds, peakRssMb, ...peaks, load, dir, dbPath })}\n`,
);
