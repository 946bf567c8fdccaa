// `npm run bench`: builds the benchmark dataset on SQLite and/or Postgres and times the RS read paths
// (search, pages, aggregates, field windows) through the in-process app with a client grant; every
// row is followed by its raw-SQL floor on the same database in the same run (bench/floors.ts, and the
// search floors of bench/search.ts) and prints both with the ratio.
// Flags: --records N (default 200000) --backend sqlite|postgres|both --huge-mb 10,100 --runs N
// --mcp runs the MCP/server scenarios instead (bench/run-mcp.ts; SQLite): --http-calls N --jsonl-records N
// --search runs the search rows with same-run floors on a reused dataset (bench/search.ts);
//   --floor-runs N measures each floor N times (exact ranking over every match takes seconds at 1M)
// --hosted drives `pdpp serve --workers N` over plain HTTP (bench/hosted.ts): --workers N --calls N --settle S
//   --per-tool adds each call kind of the mix alone (calls/s, CPU-ms/call) and the capacity they predict
//   --baseline DIR instead runs an A/B against another checkout's build (bench/hosted-ab.ts), --rounds N
//   --baseline-home DIR: the baseline serves a home it generated itself (its own search index)
// --mbox imports a generated mbox (bench/gen-mbox.ts, built once into bench/data) beside its replayed
// raw-SQL floor (bench/import-mbox.ts): --mbox-size 100MB
// --relevance scores search on a public judged collection beside FTS5 bm25() (bench/relevance.ts):
//   --collection NAME|DIR (default scifact) --queries N --store sqlite|postgres|both --mcp-sample N
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApp } from "../src/rs/app.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { generateDataset, grantEverything, prng } from "./dataset.js";
import { postgresReadFloors, type ReadFloors, sqliteReadFloors } from "./floors.js";
import { runHostedBench } from "./hosted.js";
import { runHostedAb } from "./hosted-ab.js";
import { type BenchRow, measure, printRow, writeResults } from "./measure.js";
import { runRelevanceBench } from "./relevance.js";
import { runMcpScenarios } from "./run-mcp.js";
import { type Floors, postgresFloors, runSearchBench, sqliteFloors } from "./search.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    backend: { type: "string", default: "sqlite" },
    "huge-mb": { type: "string", default: "10,100" },
    runs: { type: "string", default: "200" },
    "floor-runs": { type: "string" },
    seed: { type: "string", default: "42" },
    mcp: { type: "boolean", default: false },
    search: { type: "boolean", default: false },
    hosted: { type: "boolean", default: false },
    "per-tool": { type: "boolean", default: false },
    baseline: { type: "string" },
    "baseline-home": { type: "string" },
    rounds: { type: "string", default: "3" },
    mbox: { type: "boolean", default: false },
    "mbox-size": { type: "string", default: "100MB" },
    workers: { type: "string" },
    calls: { type: "string", default: "20000" },
    settle: { type: "string", default: "60" },
    "http-calls": { type: "string", default: "5000" },
    "jsonl-records": { type: "string", default: "200000" },
    relevance: { type: "boolean", default: false },
    collection: { type: "string", default: "scifact" },
    queries: { type: "string" },
    store: { type: "string", default: "both" },
    "mcp-sample": { type: "string", default: "30" },
  },
});
const records = Number(values.records);
const runs = Number(values.runs);
const hugeMb = String(values["huge-mb"]).split(",").filter(Boolean).map(Number);

async function openBackend(name: string): Promise<{
  store: Store;
  cleanup: () => Promise<void>;
  sqlitePath?: string;
  pg?: { url: string; schema: string };
}> {
  if (name === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-"));
    const sqlitePath = join(dir, "pdpp.db");
    const store = await openSqliteStore({ path: sqlitePath });
    const cleanup = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { store, cleanup, sqlitePath };
  }
  const url =
    process.env.PDPP_BENCH_PG_URL ??
    process.env.PDPP_TEST_PG_URL ??
    "postgres://postgres@127.0.0.1:5432/test";
  const schema = `pdpp_bench_${process.pid}`;
  const store = await openPostgresStore({ url, schema });
  return {
    store,
    pg: { url, schema },
    cleanup: async () => {
      await store.close();
      const pg = await import("pg");
      const client = new pg.default.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

async function runBackend(name: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { store, cleanup, sqlitePath, pg: pgAt } = await openBackend(name);
  let floors: { read: ReadFloors; search: Floors } | undefined;
  try {
    const t0 = Date.now();
    const info = await generateDataset(store, {
      records,
      seed: Number(values.seed),
      hugeFieldsMb: hugeMb,
      onProgress: (n) => {
        if (process.stderr.isTTY) process.stderr.write(`\r  ${name}: ${n.toLocaleString()} records written`);
      },
    });
    if (process.stderr.isTTY) process.stderr.write("\n");
    const seconds = (Date.now() - t0) / 1000;
    console.log(
      `${name}: dataset of ${info.records.toLocaleString()} records + ${hugeMb.length} huge fields in ${seconds.toFixed(1)} s`,
    );
    const token = await grantEverything(store);
    const app = createApp({ store, publicUrl: "http://127.0.0.1:7662" });
    const get = async (path: string) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      if (response.status !== 200) throw new Error(`${path} → ${response.status} ${await response.text()}`);
      return response.json();
    };
    // Floors open after the dataset is written, on a second connection to the same database.
    floors = sqlitePath
      ? { read: sqliteReadFloors(sqlitePath), search: sqliteFloors(sqlitePath) }
      : {
          read: postgresReadFloors(pgAt as { url: string; schema: string }),
          search: postgresFloors(pgAt as { url: string; schema: string }),
        };
    /** One scenario, then its raw-SQL floor in the same run; the row carries both and the ratio. */
    const row = async (
      scenario: string,
      target: string,
      fn: (i: number) => Promise<unknown>,
      floor: { name: string; fn: (i: number) => Promise<unknown> },
      note?: string,
    ) => {
      const m = await measure(fn, { runs });
      const f = await measure(floor.fn, { runs });
      const r: BenchRow & Record<string, unknown> = {
        backend: name,
        scenario,
        p50_ms: m.p50,
        p95_ms: m.p95,
        runs,
        target,
        note:
          `floor (${floor.name}) ${f.p50.toFixed(2)}/${f.p95.toFixed(2)} ms, ratio p50 ${(m.p50 / f.p50).toFixed(1)}× p95 ${(m.p95 / f.p95).toFixed(1)}×` +
          (note ? `; ${note}` : ""),
        floor_p50_ms: f.p50,
        floor_p95_ms: f.p95,
        ratio_p50: m.p50 / f.p50,
        ratio_p95: m.p95 / f.p95,
      };
      printRow(r);
      rows.push(r);
    };
    const { read, search } = floors;
    const rare = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
    await row(
      "search selective (rare term)",
      name === "sqlite" ? "p50 ≤ 5 ms" : "p50 ≤ 10 ms",
      (i) => get(`/v1/search?q=${rare[i % rare.length]}`),
      {
        name: name === "sqlite" ? "exact bm25 top-10" : "exact ts_rank_cd top-10",
        fn: (i) => search.rare(rare[i % rare.length]),
      },
    );
    const common = ["invoice", "meeting project", "budget travel hotel", "report", "tax refund", "server"];
    await row(
      "search common 1–3 terms",
      name === "sqlite" ? "p95 ≤ 50 ms" : "p95 ≤ 100 ms",
      (i) => get(`/v1/search?q=${encodeURIComponent(common[i % common.length])}`),
      { name: "newest 10 matches", fn: (i) => search.newest(common[i % common.length]) },
    );
    const people = ["alice", "bob", "carol", "dave", "erin"];
    const pagePath = (i: number) =>
      `/v1/streams/messages/records?limit=25&sort=-sent_at&filter[from]=${people[i % 5]}@example.com`;
    // The page floor: the rows, then the previews of their text in one statement, no grant logic.
    const pageFloor = {
      name: "rows + 512-char previews",
      fn: (i: number) => read.page(`${people[i % 5]}@example.com`),
    };
    const pageTarget = name === "sqlite" ? "p50 ≤ 2 ms" : "p50 ≤ 4 ms";
    await row(
      "records page 25, filter + sort, previews 512",
      pageTarget,
      (i) => get(`${pagePath(i)}&preview_chars=512`),
      pageFloor,
    );
    await row("records page 25, filter + sort, full bodies", pageTarget, (i) => get(pagePath(i)), {
      name: "rows + full text",
      fn: (i: number) => read.page(`${people[i % 5]}@example.com`, true),
    });
    await row(
      "aggregate count by month",
      "≤ 300 ms",
      () =>
        get("/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=month&limit=100"),
      { name: "GROUP BY month", fn: () => read.countByMonth() },
    );
    const work = info.connections["Work mail"];
    for (const [index, recordId] of info.hugeFieldRecordIds.entries()) {
      const size = hugeMb[index] * 1_000_000;
      const rand = prng(7);
      const rssBefore = process.memoryUsage().rss;
      const enc = encodeURIComponent(recordId);
      const offsets = Array.from({ length: runs + 3 }, () => Math.floor(rand() * (size - 4096)));
      const windowFloor = (offset: number) => ({
        name: "chunk rows sliced",
        fn: async (i: number) =>
          read.fieldWindow({
            connectionId: work,
            recordId,
            offset: offset < 0 ? offsets[i % offsets.length] : offset,
            limit: 4096,
          }),
      });
      await row(
        `field window 4 KB, random offset, ${hugeMb[index]} MB`,
        "p50 ≤ 5 ms",
        (i) =>
          get(
            `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=${offsets[i % offsets.length]}&limit_chars=4096`,
          ),
        windowFloor(-1),
      );
      const growth = (process.memoryUsage().rss - rssBefore) / 1e6;
      await row(
        `field window at start, ${hugeMb[index]} MB`,
        "—",
        () =>
          get(
            `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=0&limit_chars=4096`,
          ),
        windowFloor(0),
        `RSS growth over the random-offset run ${growth.toFixed(1)} MB (target ≤ 16 MB)`,
      );
      await row(
        `field window at end, ${hugeMb[index]} MB`,
        "—",
        () =>
          get(
            `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=${size - 4096}&limit_chars=4096`,
          ),
        windowFloor(size - 4096),
      );
    }
  } finally {
    await floors?.read.close();
    await floors?.search.close();
    await cleanup();
  }
  return rows;
}

const backends = values.backend === "both" ? ["sqlite", "postgres"] : [String(values.backend)];
const all: BenchRow[] = [];
if (values.relevance) {
  const store = String(values.store);
  if (store !== "sqlite" && store !== "postgres" && store !== "both") {
    console.error("--store must be sqlite, postgres or both.");
    process.exit(2);
  }
  process.exitCode = await runRelevanceBench({
    collection: String(values.collection),
    queries: values.queries === undefined ? undefined : Number(values.queries),
    store,
    mcpSample: Number(values["mcp-sample"]),
  });
} else if (values.mcp) {
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
  console.log(`load average before: ${load}`);
  const options = {
    records,
    runs,
    seed: Number(values.seed),
    grant: (store: Store) => grantEverything(store),
  };
  const sizes = { httpCalls: Number(values["http-calls"]), jsonlRecords: Number(values["jsonl-records"]) };
  all.push(...(await runMcpScenarios({ ...options, ...sizes })));
  console.log(
    `load average after: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
} else if (values.search) {
  all.push(
    ...(await runSearchBench({
      backends,
      records,
      runs,
      floorRuns: values["floor-runs"] ? Number(values["floor-runs"]) : undefined,
      seed: Number(values.seed),
    })),
  );
} else if (values.hosted && values.baseline) {
  all.push(
    ...(await runHostedAb({
      records,
      seed: Number(values.seed),
      baseline: values.baseline,
      calls: Number(values.calls),
      rounds: Number(values.rounds),
      workers: values.workers ? Number(values.workers) : undefined,
      baselineHome: values["baseline-home"],
    })),
  );
} else if (values.hosted) {
  all.push(
    ...(await runHostedBench({
      records,
      seed: Number(values.seed),
      workers: values.workers ? Number(values.workers) : undefined,
      calls: Number(values.calls),
      settleSeconds: Number(values.settle),
      perTool: values["per-tool"],
    })),
  );
} else if (values.mbox) {
  // Both are standalone scripts (their own flags); the import prints its row, floor and ratio as JSON.
  const file = `bench/data/bench-${values["mbox-size"]}.mbox`;
  const tsx = (args: string[]) => {
    const r = spawnSync(process.execPath, ["--import", "tsx", ...args], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
  };
  if (!existsSync(file)) tsx(["bench/gen-mbox.ts", "--size", String(values["mbox-size"]), "--out", file]);
  tsx(["bench/import-mbox.ts", "--file", file]);
} else for (const backend of backends) all.push(...(await runBackend(backend)));
if (all.length > 0) {
  const file = writeResults(all, {
    records,
    hugeMb,
    runs,
    mcp: values.mcp,
    hosted: values.hosted,
    loadavg: loadavg(),
    node: process.version,
    date: new Date().toISOString(),
  });
  console.log(`results written to ${file}`);
}
