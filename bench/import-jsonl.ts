// JSONL import throughput: writes a deterministic JSONL file of N transaction-like records (bench data
// only) and imports it with the real importer as `pdpp import` runs it in-process (importFile: records
// read and prepared in a worker thread, written by the owner sink through the store's
// applyPreparedBatch on the main thread), beside the same-run raw-SQL floor: the same rows written with
// prepared statements, in transactions of the same size, into the store's own schema (every index it
// keeps, and the stream's FTS table). Run alone: tsx bench/import-jsonl.ts [--records N] [--batch-size N]
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { payloadDigest } from "../src/core/canonical-json.js";
import { encodeRecordId, hashToken, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import { normalizeTime } from "../src/core/time.js";
import { importFile } from "../src/importers/import-file.js";
import type { OwnerApi } from "../src/importers/owner-sink.js";
import { DEFAULT_BATCH_SIZE } from "../src/importers/run-import.js";
import { createApp } from "../src/rs/app.js";
import { SqliteDb } from "../src/store/sqlite/db.js";
import { ensureSearchTable, insertSearchRow, searchValues } from "../src/store/sqlite/search-tables.js";
import { openSqliteStore, preparedIngestOf } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { prng } from "./dataset.js";

export const JSONL_BENCH_MANIFEST: Manifest = {
  connector_key: "jsonl.ledger",
  display_name: "Ledger export",
  version: "1",
  streams: [
    {
      name: "entries",
      primary_key: ["id"],
      cursor_field: "posted_at",
      time_field: "posted_at",
      title_field: "description",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          posted_at: { type: "string", format: "date-time" },
          description: { type: "string" },
          counterparty: { type: "string" },
          category: { type: "string" },
          amount: { type: "number" },
          currency: { type: "string" },
          memo: { type: "string" },
        },
      },
      query: {
        search: ["description", "counterparty", "memo"],
        exact_filters: ["category", "currency"],
        range_filters: { posted_at: ["gte", "lt"], amount: ["gte", "lte"] },
      },
    },
  ],
};

const WORDS = "coffee rent grocery salary refund invoice hotel train taxi pharmacy book gym insurance".split(
  " ",
);
const PARTIES = ["Acme GmbH", "Blue Bottle", "City Rail", "Northwind", "Contoso Ltd", "Initech", "Globex"];

/** bench/data/ledger-<N>.jsonl, written once (about 250 bytes a record). */
export async function ensureJsonlFile(records: number): Promise<string> {
  const dir = join(import.meta.dirname, "data");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `ledger-${records}.jsonl`);
  if (existsSync(path)) return path;
  const rand = prng(records);
  const out = createWriteStream(`${path}.partial`);
  const start = Date.parse("2019-01-01T00:00:00Z");
  for (let i = 0; i < records; i++) {
    const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
    const line = JSON.stringify({
      id: `tx-${i}`,
      posted_at: new Date(start + Math.floor(rand() * 2e11)).toISOString(),
      description: `${pick(WORDS)} ${pick(WORDS)} ${i % 97}`,
      counterparty: pick(PARTIES),
      category: pick(WORDS),
      amount: Math.round((rand() - 0.7) * 100_000) / 100,
      currency: rand() < 0.9 ? "EUR" : "USD",
      memo: `ref ${Math.floor(rand() * 1e9)} ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${pick(PARTIES)}`,
    });
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  renameSync(`${path}.partial`, path);
  return path;
}

/** What `pdpp import` hands the importers in-process: the app for HTTP calls, the store for batches. */
export function inProcessOwnerApi(
  store: Store,
  app: { fetch: (r: Request) => Response | Promise<Response> },
  ownerToken: string,
): OwnerApi {
  return {
    fetch: async (r) => app.fetch(r),
    baseUrl: "http://127.0.0.1",
    ownerToken,
    ingest: (id, stream, ops) => store.applyBatch(id, stream, ops),
    ingestPrepared: preparedIngestOf(store),
  };
}

export interface JsonlImportResult {
  records: number;
  added: number;
  seconds: number;
  recordsPerSecond: number;
  fileMb: number;
  batchSize: number;
  /** The raw-SQL floor of the same run (seconds and rows/s) and importer time ÷ floor time. */
  floorSeconds: number;
  floorPerSecond: number;
  ratio: number;
  /** CPU seconds of the import (every thread) and of the floor, and their ratio. */
  cpuSeconds: number;
  /** CPU seconds of the import's main thread alone (it writes; a worker prepares); null off Linux. */
  mainCpuSeconds: number | null;
  floorCpuSeconds: number;
  cpuRatio: number;
  /** 1-minute load average before and after (the machine is shared). */
  load: [number, number];
}

/**
 * The floor: the rows the importer would store, computed up front (parse, id, digest, time, search
 * text are not timed), then written with cached prepared statements — the records INSERT (which, as
 * the store's, refuses an existing key instead of looking it up first) and the FTS INSERT — in
 * IMMEDIATE transactions of `batchSize` rows, into a fresh database migrated to the store's schema.
 */
export function jsonlFloorSeconds(path: string, batchSize: number): { seconds: number; cpuSeconds: number } {
  const stream = JSONL_BENCH_MANIFEST.streams[0]!;
  const rows = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const data = JSON.parse(line) as Record<string, unknown>;
      return {
        recordId: encodeRecordId([data.id]),
        json: JSON.stringify(data),
        time: normalizeTime(data.posted_at),
        digest: payloadDigest(data),
        search: searchValues(data, stream),
      };
    });
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-floor-"));
  const db = new SqliteDb(join(dir, "floor.db"));
  try {
    const connectionId = "cin_000000000001";
    db.raw
      .prepare(
        "INSERT INTO connections (connection_id, connector_key, display_name, created_at) VALUES (?, ?, ?, ?)",
      )
      .run(connectionId, JSONL_BENCH_MANIFEST.connector_key, "Floor", new Date().toISOString());
    const insert = db.raw.prepare(
      `INSERT INTO records (connection_id, stream, record_id, connector_key, payload, emitted_at, time, version, digest, deleted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (connection_id, stream, record_id) DO NOTHING`,
    );
    let version = 0;
    const write = db.raw.transaction((slice: typeof rows) => {
      const table = ensureSearchTable(db, {
        connectorKey: JSONL_BENCH_MANIFEST.connector_key,
        stream: stream.name,
        search: stream.query?.search,
      });
      const emittedAt = new Date().toISOString();
      for (const r of slice) {
        const row = insert.run(
          connectionId,
          stream.name,
          r.recordId,
          JSONL_BENCH_MANIFEST.connector_key,
          r.json,
          emittedAt,
          r.time,
          ++version,
          r.digest,
        ).lastInsertRowid;
        if (r.search) insertSearchRow(db, { table: table.name, row }, r.search);
      }
    });
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < rows.length; i += batchSize) write.immediate(rows.slice(i, i + batchSize));
    return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSecondsSince(cpu) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU seconds of this process's main thread so far (Linux: /proc/<pid>/task/<pid>/stat), or null. */
function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, all threads) since `start`: on a shared machine, the steadier figure. */
function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

export async function benchJsonlImport(
  records: number,
  options: { batchSize?: number } = {},
): Promise<JsonlImportResult> {
  const path = await ensureJsonlFile(records);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const loadBefore = loadavg()[0]!;
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-jsonl-"));
  const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  let seconds: number;
  let cpuSeconds: number;
  let mainCpuSeconds: number | null;
  try {
    const ownerToken = newToken("owner");
    await store.putOwnerToken(hashToken(ownerToken));
    const app = createApp({ store });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const mainCpu = mainThreadCpuSeconds();
    const result = await importFile(inProcessOwnerApi(store, app, ownerToken), {
      kind: "jsonl",
      path,
      connectionLabel: "Ledger",
      generic: { manifest: JSONL_BENCH_MANIFEST },
      batchSize,
    });
    seconds = (performance.now() - started) / 1000;
    cpuSeconds = cpuSecondsSince(cpu);
    const mainCpuAfter = mainThreadCpuSeconds();
    mainCpuSeconds = mainCpu === null || mainCpuAfter === null ? null : mainCpuAfter - mainCpu;
    if (result.added !== records) throw new Error(`imported ${result.added} of ${records} records`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = jsonlFloorSeconds(path, batchSize);
  return {
    records,
    added: records,
    seconds,
    recordsPerSecond: records / seconds,
    fileMb: statSync(path).size / 1e6,
    batchSize,
    floorSeconds: floor.seconds,
    floorPerSecond: records / floor.seconds,
    ratio: seconds / floor.seconds,
    cpuSeconds,
    mainCpuSeconds,
    floorCpuSeconds: floor.cpuSeconds,
    cpuRatio: cpuSeconds / floor.cpuSeconds,
    load: [loadBefore, loadavg()[0]!],
  };
}

/** One line for a JSONL result: rate, floor, ratio, load. */
export function describeJsonl(r: JsonlImportResult): string {
  const rate = (n: number) => Math.round(n).toLocaleString("en");
  return `${rate(r.recordsPerSecond)} records/s (${rate(r.records)} records, ${r.fileMb.toFixed(1)} MB, batches of ${rate(r.batchSize)}); floor ${rate(r.floorPerSecond)} rows/s (raw SQL, same schema and transactions), ratio ${r.ratio.toFixed(2)}; CPU ${r.cpuSeconds.toFixed(2)} s vs floor ${r.floorCpuSeconds.toFixed(2)} s (${rate(r.records / r.cpuSeconds)} vs ${rate(r.records / r.floorCpuSeconds)} per CPU-s, ratio ${r.cpuRatio.toFixed(2)}${r.mainCpuSeconds === null ? "" : `; main thread ${((r.mainCpuSeconds * 1e6) / r.records).toFixed(1)} µs/record vs floor ${((r.floorCpuSeconds * 1e6) / r.records).toFixed(1)}`}); load ${r.load.map((l) => l.toFixed(1)).join("→")}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      records: { type: "string", default: "200000" },
      "batch-size": { type: "string", default: String(DEFAULT_BATCH_SIZE) },
    },
  });
  const result = await benchJsonlImport(Number(values.records), { batchSize: Number(values["batch-size"]) });
  process.stdout.write(`import jsonl (sqlite): ${describeJsonl(result)}\n`);
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(
    join(import.meta.dirname, "results", "import-jsonl.json"),
    `${JSON.stringify(result, null, 2)}\n`,
  );
}
