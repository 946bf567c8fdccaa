// A closed-loop load generator for the hosted /mcp: `concurrency` keep-alive connections each send
// JSON-RPC tools/call POSTs back to back; counts errors and times each call. Runs in a worker thread
// (bench/run-mcp.ts) so the server's event loop is not shared with the client's HTTP and JSON work.
import { Agent, request } from "node:http";
import { isMainThread, parentPort, workerData } from "node:worker_threads";

export interface LoadCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface LoadOptions {
  url: string;
  token: string;
  calls: LoadCall[];
  total: number;
  concurrency: number;
  /** Baseline mode: GET this RS path instead of POSTing tool calls to /mcp. */
  rsPath?: string;
}

export interface LoadResult {
  ok: number;
  /** The first few failures, verbatim (status, JSON-RPC error or isError text). */
  failures: string[];
  failureCount: number;
  seconds: number;
  /** Per-call latency in ms, in completion order. */
  latencies: number[];
}

function send(url: URL, agent: Agent, headers: Record<string, string>, body: string | null) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: body === null ? "GET" : "POST",
        agent,
        headers,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 30 s")));
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

function failure(answer: { status: number; body: string }, rs: boolean): string | null {
  if (answer.status !== 200) return `HTTP ${answer.status} ${answer.body.slice(0, 160)}`;
  if (rs) return null;
  const parsed = JSON.parse(answer.body) as {
    error?: unknown;
    result?: { isError?: boolean; content?: { text?: string }[] };
  };
  if (parsed.error !== undefined) return `JSON-RPC error ${JSON.stringify(parsed.error).slice(0, 160)}`;
  if (parsed.result?.isError) return `isError ${parsed.result.content?.[0]?.text?.slice(0, 160)}`;
  return null;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.rsPath ?? "/mcp", options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    authorization: `Bearer ${options.token}`,
  };
  const result: LoadResult = { ok: 0, failures: [], failureCount: 0, seconds: 0, latencies: [] };
  const fail = (why: string) => {
    result.failureCount++;
    if (result.failures.length < 5) result.failures.push(why);
  };
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.total) {
      const i = next++;
      const call = options.calls[i % options.calls.length];
      const body = options.rsPath
        ? null
        : JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: call });
      const t0 = performance.now();
      try {
        const why = failure(await send(url, agent, headers, body), body === null);
        if (why) fail(`${call.name}: ${why}`);
        else result.ok++;
      } catch (error) {
        fail(`${call.name}: ${(error as Error).message}`);
      }
      result.latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  result.seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return result;
}

if (!isMainThread && parentPort && (workerData as { mcpLoad?: LoadOptions })?.mcpLoad) {
  const port = parentPort;
  const options = (workerData as { mcpLoad: LoadOptions & { startOnGo?: boolean } }).mcpLoad;
  const start = () => runLoad(options).then((r) => port.postMessage(r));
  if (options.startOnGo) {
    // Loaded and compiled: the parent starts every thread at once and measures CPU from there.
    port.once("message", () => void start());
    port.postMessage("ready");
  } else void start();
}
