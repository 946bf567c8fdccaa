// A closed-loop load generator for the hosted /mcp: `concurrency` keep-alive connections each send
// JSON-RPC tools/call POSTs back to back; counts errors and times each call. Runs in a worker thread
// (bench/run-mcp.ts) so the server's event loop is not shared with the client's HTTP and JSON work.
// It calls as a 2025 client (no initialize: a stateless server needs none) or as a 2026-07-28 client
// (the per-request `_meta` envelope and the standard headers that revision requires).
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
  /** The protocol era the calls speak; 2025 when absent. */
  era?: "2025" | "2026";
}

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "pdpp-bench", version: "1" },
};

/** The POST body and the per-call headers of one tools/call, as the era's clients send it. */
export function toolCallRequest(
  call: LoadCall,
  id: number,
  era: "2025" | "2026",
): { body: string; headers: Record<string, string> } {
  if (era === "2025") {
    return { body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: call }), headers: {} };
  }
  return {
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { ...call, _meta: ENVELOPE } }),
    headers: {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": call.name,
      accept: "application/json, text/event-stream",
    },
  };
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
      const rpc = options.rsPath ? null : toolCallRequest(call, i, options.era ?? "2025");
      const t0 = performance.now();
      try {
        const answer = await send(url, agent, { ...headers, ...rpc?.headers }, rpc?.body ?? null);
        const why = failure(answer, rpc === null);
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
