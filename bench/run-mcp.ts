// `npm run bench -- --mcp`: the MCP and server scenarios of 40-quality.md — MCP overhead over the RS
// call in-process, hosted /mcp throughput at concurrency 32, `pdpp serve` idle RSS, JSONL import.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { InProcessRsClient, type RsClient } from "../src/mcp/rs-client.js";
import { createPdppMcpServer } from "../src/mcp/server.js";
import { createApp } from "../src/rs/app.js";
import { startServer } from "../src/server.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { generateDataset } from "./dataset.js";
import { benchJsonlImport, describeJsonl } from "./import-jsonl.js";
import type { LoadCall, LoadResult } from "./mcp-http-load.js";
import { type BenchRow, percentile, printRow } from "./measure.js";
import { measureServeIdleRss, measureServeRssAfterLoad, rssBenchHome } from "./serve-rss.js";

const BASE = "http://127.0.0.1:7662";

export interface McpBenchOptions {
  records: number;
  runs: number;
  seed: number;
  /** Calls per hosted /mcp load run. */
  httpCalls: number;
  jsonlRecords: number;
  /** Token of a client grant over every bench stream (bench/run.ts grantAll). */
  grant: (store: Store) => Promise<string>;
}

/** An SDK Client linked in-memory to a pdpp MCP server, as `pdpp mcp` serves one session. */
async function createClient(rs: RsClient): Promise<Client> {
  const server = createPdppMcpServer({ rs, providerUrl: BASE });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "bench-agent", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools(); // caches output schemas: every result is validated, as real clients do
  return client;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function toolText(client: Client, call: { name: string; arguments: Record<string, unknown> }) {
  const { name } = call;
  const result = await client.callTool(call);
  const text = (result.content as { text?: string }[])[0]?.text ?? "";
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { text, structured: result.structuredContent as Record<string, unknown> };
}

/** Same call both ways, interleaved run by run so machine load hits both sides alike. */
async function overhead(
  ctx: { client: Client; app: ReturnType<typeof createApp>; capture: () => Request[] },
  options: { tool: string; args: Record<string, unknown>; runs: number },
): Promise<BenchRow[]> {
  // The first call may fill the server's schema cache; the second shows the steady-state RS calls.
  await toolText(ctx.client, { name: options.tool, arguments: options.args });
  ctx.capture();
  await toolText(ctx.client, { name: options.tool, arguments: options.args });
  // Replay exactly the requests the tool made (path, query, bearer, x-pdpp-tool).
  const rsRequests = ctx.capture();
  if (rsRequests.length === 0) throw new Error(`${options.tool} made no RS call`);
  const rsOnce = async () => {
    for (const rsRequest of rsRequests) {
      const response = await ctx.app.fetch(new Request(rsRequest.url, { headers: rsRequest.headers }));
      if (response.status !== 200) throw new Error(`RS ${response.status}: ${await response.text()}`);
      await response.text();
    }
  };
  for (let i = 0; i < 5; i++) {
    await rsOnce();
    await toolText(ctx.client, { name: options.tool, arguments: options.args });
  }
  const rs: number[] = [];
  const mcp: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    let t0 = process.hrtime.bigint();
    await rsOnce();
    rs.push(ms(t0));
    t0 = process.hrtime.bigint();
    await toolText(ctx.client, { name: options.tool, arguments: options.args });
    mcp.push(ms(t0));
  }
  const [r, m] = [sorted(rs), sorted(mcp)];
  const paths = rsRequests.map((r) => {
    const url = new URL(r.url);
    return url.pathname + url.search;
  });
  const row = (scenario: string, xs: number[], target: string, note?: string): BenchRow => ({
    backend: "sqlite",
    scenario,
    p50_ms: percentile(xs, 50),
    p95_ms: percentile(xs, 95),
    runs: options.runs,
    target,
    note,
  });
  const added = percentile(m, 50) - percentile(r, 50);
  return [
    row(`${options.tool}: RS app.fetch`, r, "—", paths.join(" + ")),
    row(`${options.tool}: MCP tool (SDK Client, in-memory)`, m, "—"),
    {
      ...row(`${options.tool}: MCP added over the RS call`, [], "≤ 1 ms added at p50"),
      p50_ms: added,
      p95_ms: percentile(m, 95) - percentile(r, 95),
      note: "p50(MCP) − p50(RS); p95 likewise",
    },
  ];
}

/**
 * CPU seconds of this process's main thread (the server; the load generator is a worker), from
 * /proc: a load-independent cost per call on a shared machine. NaN off Linux.
 */
function serverThreadCpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in USER_HZ ticks
  } catch {
    return Number.NaN;
  }
}

/** The load generator in a worker thread; tsx is registered there since workers start without it. */
function loadInWorker(options: {
  url: string;
  token: string;
  calls: LoadCall[];
  total: number;
  rsPath?: string;
}) {
  const file = new URL("./mcp-http-load.ts", import.meta.url).href;
  const code = `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(file)}); });`;
  const worker = new Worker(code, { eval: true, workerData: { mcpLoad: { ...options, concurrency: 32 } } });
  const cpuBefore = serverThreadCpuSeconds();
  return new Promise<LoadResult & { serverCpuSeconds: number }>((resolve, reject) => {
    worker.once("message", (result: LoadResult) => {
      const serverCpuSeconds = serverThreadCpuSeconds() - cpuBefore;
      void worker.terminate();
      resolve({ ...result, serverCpuSeconds });
    });
    worker.once("error", reject);
  });
}

function loadRow(
  scenario: string,
  result: LoadResult & { serverCpuSeconds: number },
  options: { total: number; target: string },
): BenchRow {
  const latencies = sorted(result.latencies);
  const rate = result.ok / result.seconds;
  const errors =
    result.failureCount === 0 ? "zero errors" : `${result.failureCount} ERRORS: ${result.failures[0]}`;
  const cpuMs = (result.serverCpuSeconds * 1000) / options.total;
  return {
    backend: "sqlite",
    scenario,
    p50_ms: percentile(latencies, 50),
    p95_ms: percentile(latencies, 95),
    runs: options.total,
    target: options.target,
    note:
      `${Math.round(rate).toLocaleString("en")} calls/s, ${errors}; server thread ${cpuMs.toFixed(2)} CPU ms/call ` +
      `(≈ ${Math.round(1000 / cpuMs).toLocaleString("en")}/s per free core); p50/p95 = latency per call`,
  };
}

export async function runMcpScenarios(options: McpBenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const emit = (r: BenchRow) => {
    printRow(r);
    rows.push(r);
  };
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-mcp-"));
  const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  try {
    const t0 = Date.now();
    const info = await generateDataset(store, {
      records: options.records,
      seed: options.seed,
      hugeFieldsMb: [],
    });
    console.log(
      `sqlite: dataset of ${info.records.toLocaleString("en")} records in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    const token = await options.grant(store);
    const app = createApp({ store, publicUrl: BASE });
    let made: Request[] = [];
    const rs = new InProcessRsClient(
      async (request, env) => {
        made.push(request.clone());
        return app.fetch(request, env);
      },
      token,
      BASE,
    );
    const client = await createClient(rs);
    /** The RS requests made since the last capture. */
    const capture = () => {
      const out = made;
      made = [];
      return out;
    };
    const ctx = { client, app, capture };
    const runs = options.runs;
    for (const r of await overhead(ctx, { tool: "search", args: { query: "zanzibar" }, runs })) emit(r);
    const page = {
      stream: "messages",
      filter: [{ field: "from", op: "eq", value: "alice@example.com" }],
      sort: "-sent_at",
      limit: 25,
    };
    for (const r of await overhead(ctx, { tool: "query_records", args: page, runs })) emit(r);

    // Hosted /mcp over real HTTP: a mix of the read tools a session makes.
    const hit = await toolText(client, {
      name: "search",
      arguments: { query: "invoice", streams: ["messages"], limit: 1 },
    });
    const id = (hit.structured.results as { id: string }[])[0].id;
    capture();
    await toolText(client, { name: "fetch", arguments: { id } });
    // The record GET the fetch tool makes (its first RS call; the schema rows come after, once).
    const fetched = new URL(capture()[0].url);
    const fetchRsPath = fetched.pathname + fetched.search;
    await client.close();
    const calls: LoadCall[] = [
      { name: "search", arguments: { query: "zanzibar" } },
      { name: "query_records", arguments: page },
      { name: "fetch", arguments: { id } },
      { name: "read_record_field", arguments: { id, field_path: "body", limit_chars: 2048 } },
      { name: "schema", arguments: {} },
    ];
    const server = await startServer({ store, host: "127.0.0.1", port: 0 });
    try {
      const total = options.httpCalls;
      const mixed = await loadInWorker({ url: server.url, token, calls, total });
      const target = "≥ 1,000 calls/s, zero errors";
      emit(loadRow("hosted /mcp c=32, mixed 5 tools", mixed, { total, target }));
      const fetchOnly = await loadInWorker({ url: server.url, token, calls: [calls[2]], total });
      emit(loadRow("hosted /mcp c=32, fetch only", fetchOnly, { total, target }));
      // The same record straight from the RS over HTTP: what the MCP layer adds on top.
      const rsPath = fetchRsPath;
      const rsOnly = await loadInWorker({ url: server.url, token, calls, total, rsPath });
      emit(loadRow("hosted RS GET c=32, same record (baseline)", rsOnly, { total, target: "—" }));
    } finally {
      await server.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }

  for (const sample of await measureServeIdleRss()) {
    emit({
      backend: "sqlite",
      scenario: `pdpp serve idle RSS, ${sample.label}`,
      p50_ms: sample.startupMs,
      p95_ms: sample.startupMs,
      runs: 1,
      target: "≤ 120 MB",
      note: `RSS ${sample.rssMb.toFixed(1)} MB 2 s after the URL line (peak ${sample.peakMb.toFixed(1)} MB); time = spawn → URL line`,
    });
  }

  // RSS after a burst of large reads, then idle: the server gives its page cache and heap back.
  const rssHome = await rssBenchHome(100_000);
  const rss = await measureServeRssAfterLoad({
    ...rssHome,
    requests: 2000,
    concurrency: 8,
    settleSeconds: 30,
  });
  emit({
    backend: "sqlite",
    scenario: "pdpp serve RSS after load, 100k records",
    p50_ms: rss.settledMb,
    p95_ms: rss.afterLoadMb,
    runs: 1,
    target: "back to ≤ 160 MB",
    note: `MB, not ms: start ${rss.startMb.toFixed(0)}, after ${rss.requests} reads ${rss.afterLoadMb.toFixed(0)} (${rss.errors} errors), every 5 s idle ${rss.trace.join(" → ")}`,
  });

  const jsonl = await benchJsonlImport(options.jsonlRecords);
  emit({
    backend: "sqlite",
    scenario: "import jsonl (importFile, in-process: batches straight to the store)",
    p50_ms: jsonl.seconds * 1000,
    p95_ms: jsonl.seconds * 1000,
    runs: 1,
    target: "≥ 50,000 records/s",
    note: `${describeJsonl(jsonl)}; time = whole import`,
  });
  return rows;
}
