// `npm run bench`: builds the benchmark dataset on SQLite and/or Postgres and times the RS read paths
// (search, pages, aggregates, field windows) through the in-process app with a client grant.
// Flags: --records N (default 200000) --backend sqlite|postgres|both --huge-mb 10,100 --runs N
// --mcp runs the MCP/server scenarios instead (bench/run-mcp.ts; SQLite): --http-calls N --jsonl-records N
// --search runs the search rows with same-run floors on a reused dataset (bench/search.ts)
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hashToken, newGrantId, newToken } from "../src/core/ids.js";
import { createApp } from "../src/rs/app.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { BENCH_MANIFESTS, generateDataset, prng } from "./dataset.js";
import { type BenchRow, measure, printRow, writeResults } from "./measure.js";
import { runMcpScenarios } from "./run-mcp.js";
import { runSearchBench } from "./search.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    backend: { type: "string", default: "sqlite" },
    "huge-mb": { type: "string", default: "10,100" },
    runs: { type: "string", default: "200" },
    seed: { type: "string", default: "42" },
    mcp: { type: "boolean", default: false },
    search: { type: "boolean", default: false },
    "http-calls": { type: "string", default: "5000" },
    "jsonl-records": { type: "string", default: "200000" },
  },
});
const records = Number(values.records);
const runs = Number(values.runs);
const hugeMb = String(values["huge-mb"]).split(",").filter(Boolean).map(Number);

async function openBackend(name: string): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  if (name === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-"));
    const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
    const cleanup = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { store, cleanup };
  }
  const url =
    process.env.PDPP_BENCH_PG_URL ??
    process.env.PDPP_TEST_PG_URL ??
    "postgres://postgres@127.0.0.1:5432/test";
  const schema = `pdpp_bench_${process.pid}`;
  const store = await openPostgresStore({ url, schema });
  return {
    store,
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

async function grantAll(store: Store): Promise<string> {
  const token = newToken("client");
  await store.createGrant({
    grant_id: newGrantId(),
    client_name: "bench",
    purpose: "benchmark",
    created_at: new Date().toISOString(),
    expires_at: null,
    revoked_at: null,
    token_hash: hashToken(token),
    streams: BENCH_MANIFESTS.flatMap((m) =>
      m.streams.map((s) => ({
        stream: s.name,
        connector_key: m.connector_key,
        connections: "all" as const,
        fields: "all" as const,
      })),
    ),
  });
  return token;
}

async function runBackend(name: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { store, cleanup } = await openBackend(name);
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
    const token = await grantAll(store);
    const app = createApp({ store, publicUrl: "http://127.0.0.1:7662" });
    const get = async (path: string) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      if (response.status !== 200) throw new Error(`${path} → ${response.status} ${await response.text()}`);
      return response.json();
    };
    const row = async (
      scenario: string,
      target: string,
      fn: (i: number) => Promise<unknown>,
      note?: string,
    ) => {
      const m = await measure(fn, { runs });
      const r: BenchRow = { backend: name, scenario, p50_ms: m.p50, p95_ms: m.p95, runs, target, note };
      printRow(r);
      rows.push(r);
    };
    const rare = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
    await row("search selective (rare term)", "p50 ≤ 5 ms", (i) =>
      get(`/v1/search?q=${rare[i % rare.length]}`),
    );
    const common = ["invoice", "meeting project", "budget travel hotel", "report", "tax refund", "server"];
    await row("search common 1–3 terms", "p95 ≤ 50 ms", (i) =>
      get(`/v1/search?q=${encodeURIComponent(common[i % common.length])}`),
    );
    const people = ["alice", "bob", "carol", "dave", "erin"];
    await row("records page 25, filter + sort", "p50 ≤ 2 ms", (i) =>
      get(`/v1/streams/messages/records?limit=25&sort=-sent_at&filter[from]=${people[i % 5]}@example.com`),
    );
    await row("aggregate count by month", "≤ 300 ms", () =>
      get("/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=month&limit=100"),
    );
    const work = info.connections["Work mail"];
    for (const [index, recordId] of info.hugeFieldRecordIds.entries()) {
      const size = hugeMb[index] * 1_000_000;
      const rand = prng(7);
      const rssBefore = process.memoryUsage().rss;
      const enc = encodeURIComponent(recordId);
      await row(`field window 4 KB, random offset, ${hugeMb[index]} MB`, "p50 ≤ 5 ms", () =>
        get(
          `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=${Math.floor(rand() * (size - 4096))}&limit_chars=4096`,
        ),
      );
      const growth = (process.memoryUsage().rss - rssBefore) / 1e6;
      await row(
        `field window at start, ${hugeMb[index]} MB`,
        "—",
        () =>
          get(
            `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=0`,
          ),
        `RSS growth over the random-offset run ${growth.toFixed(1)} MB (target ≤ 16 MB)`,
      );
      await row(`field window at end, ${hugeMb[index]} MB`, "—", () =>
        get(
          `/v1/streams/messages/records/${enc}/field-window?field=body&connection_id=${work}&offset_chars=${size - 4096}`,
        ),
      );
    }
  } finally {
    await cleanup();
  }
  return rows;
}

const backends = values.backend === "both" ? ["sqlite", "postgres"] : [String(values.backend)];
const all: BenchRow[] = [];
if (values.mcp) {
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
  console.log(`load average before: ${load}`);
  const options = { records, runs, seed: Number(values.seed), grant: grantAll };
  const sizes = { httpCalls: Number(values["http-calls"]), jsonlRecords: Number(values["jsonl-records"]) };
  all.push(...(await runMcpScenarios({ ...options, ...sizes })));
  console.log(
    `load average after: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
} else if (values.search) {
  all.push(...(await runSearchBench({ backends, records, runs, seed: Number(values.seed) })));
} else for (const backend of backends) all.push(...(await runBackend(backend)));
const file = writeResults(all, {
  records,
  hugeMb,
  runs,
  mcp: values.mcp,
  loadavg: loadavg(),
  node: process.version,
  date: new Date().toISOString(),
});
console.log(`results written to ${file}`);
