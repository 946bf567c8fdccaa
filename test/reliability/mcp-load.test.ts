// Reliability 6 (40-quality.md): 10,000 tool calls over the served /mcp at concurrency 64, real
// HTTP against `pdpp serve`'s assembly, with zero errors and a heap that stays flat. No speed assertion.
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { after, before, describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startServer } from "../../src/server.js";
import { buildWorld, type World } from "../mcp/fixtures/world.js";

const TOTAL = 10_000;
const CONCURRENCY = 64;
/**
 * One stuck request must fail the run, not hang it. Generous: the runner runs two test files at
 * once, and on a loaded 2-core machine a request queued behind 63 others waited over 30 s (five
 * such timeouts failed a full run that passes alone) — a hang, not slowness, is what this catches.
 */
const REQUEST_TIMEOUT_MS = 120_000;
/**
 * Allowed heap growth between "after 5,000 calls" and "after 10,000 calls", both measured after a
 * full GC. Every call builds a fresh McpServer + transport + Hono context (tens of KB), so leaking
 * any per-request object retains ≥ 5,000 × 10 KB ≈ 50 MB over the second half. Measured here: the
 * clean run grows ~0.6 MB (caches — prepared statements, manifests, tool schemas — fill during the
 * first half); the same run with a deliberate 1 KB-per-call leak grows 5.6 MB and fails. So 4 MB
 * catches anything from ~0.8 KB/call up and sits ~6× above the noise. Without a real GC (RSS
 * fallback) the allocator keeps freed pages, so the margin widens to 32 MB (still far below a
 * per-request leak).
 */
const HEAP_MARGIN_BYTES = 4 * 1024 * 1024;
const RSS_MARGIN_BYTES = 32 * 1024 * 1024;

/**
 * A real full GC: `global.gc` under --expose-gc, else the flag is set at runtime and a fresh context
 * picks up its `gc` (the test runner starts node without the flag). Null if neither works.
 */
const forceGc: (() => void) | null = (() => {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : null;
  } catch {
    return null;
  }
})();

/** heapUsed after two full GCs (with a turn of the event loop between, so pending closes settle); RSS without GC. */
async function heapAfterGc(): Promise<number> {
  if (!forceGc) return process.memoryUsage().rss;
  for (let i = 0; i < 2; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    forceGc();
  }
  return process.memoryUsage().heapUsed;
}

interface Call {
  name: string;
  arguments: Record<string, unknown>;
  /** The text every answer of this call must start with: proves it is the right, non-error answer. */
  expectPrefix: string;
}

function callsFor(world: World): Call[] {
  const long = `${world.work}/messages:long-1`;
  return [
    { name: "search", arguments: { query: "ledger", limit: 3 }, expectPrefix: "3 hits · has_more=true" },
    { name: "search", arguments: { query: "zebra" }, expectPrefix: "3 hits · has_more=false" },
    {
      name: "query_records",
      arguments: { stream: "messages", connection_id: world.work, limit: 5, sort: "-sent_at" },
      // The text shows the records that fit its budget and a cursor that resumes at the first it
      // did not show (issue 20 item 4).
      expectPrefix: "showing 4 of 5 records from messages · has_more=true · next_cursor=",
    },
    {
      name: "query_records",
      arguments: {
        stream: "messages",
        connection_id: world.home,
        filter: [{ field: "from", op: "eq", value: "bob@example.com" }],
      },
      expectPrefix: "1 records from messages · has_more=false",
    },
    {
      name: "fetch",
      arguments: { id: `${world.home}/messages:home-2` },
      expectPrefix: `{"id":"${world.home}/`,
    },
    {
      name: "read_record_field",
      arguments: { id: long, field_path: "body", offset_chars: 199_000, limit_chars: 512 },
      expectPrefix: `{"id":"${long}","field_path":"body","start":199000,"end":199512,"total":200046`,
    },
    {
      name: "aggregate",
      arguments: { stream: "messages", connection_id: world.work, metric: "count", group_by: "from" },
      expectPrefix: 'count(messages) by from: "bob@example.com"=5, "alice@example.com"=3',
    },
    { name: "schema", arguments: {}, expectPrefix: "schema index · 1 connector · 2 streams" },
  ];
}

interface Answer {
  status: number;
  body: string;
}

function post(options: { url: URL; agent: Agent; token: string; body: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: options.url.hostname,
        port: options.url.port,
        path: "/mcp",
        method: "POST",
        agent: options.agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${options.token}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Why an answer is not a clean, correct tool result (null when it is). */
function problem(answer: Answer, sent: { call: Call; id: number }): string | null {
  const { call, id } = sent;
  if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
  const parsed = JSON.parse(answer.body) as {
    id?: number;
    error?: unknown;
    result?: { isError?: boolean; content?: { type: string; text?: string }[] };
  };
  if (parsed.error !== undefined) return `JSON-RPC error ${JSON.stringify(parsed.error).slice(0, 200)}`;
  if (parsed.id !== id) return `answer id ${parsed.id} for request ${id}`;
  const text = parsed.result?.content?.[0]?.text ?? "";
  if (parsed.result?.isError) return `isError: ${text.slice(0, 200)}`;
  if (!text.startsWith(call.expectPrefix)) return `unexpected answer: ${text.slice(0, 200)}`;
  return null;
}

describe("load: tool calls over the served /mcp", () => {
  let world: World;
  let server: { url: string; close(): Promise<void> };
  before(async () => {
    world = await buildWorld();
    server = await startServer({ store: world.store, host: "127.0.0.1", port: 0 });
  });
  after(async () => {
    await server?.close();
    await world?.close();
  });

  test(`${TOTAL} tools/call POSTs at concurrency ${CONCURRENCY}: zero errors, steady memory`, {
    // A hang guard, not a speed bound: a loaded 2-core CI box has taken over 240 s for the 10,000 calls.
    timeout: 900_000,
  }, async (t) => {
    const calls = callsFor(world);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const url = new URL(server.url);
    const failures: string[] = [];
    const okByTool = new Map<string, number>();
    let next = 0;
    let maxInFlight = 0;
    let inFlight = 0;

    // Runs calls [next, end) with CONCURRENCY workers pulling the next index.
    const runUntil = async (end: number) => {
      const worker = async () => {
        while (next < end) {
          const i = next++;
          const call = calls[i % calls.length];
          const body = JSON.stringify({
            jsonrpc: "2.0",
            id: i,
            method: "tools/call",
            params: { name: call.name, arguments: call.arguments },
          });
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          try {
            const why = problem(await post({ url, agent, token: world.token, body }), { call, id: i });
            if (why) failures.push(`#${i} ${call.name}: ${why}`);
            else okByTool.set(call.name, (okByTool.get(call.name) ?? 0) + 1);
          } catch (error) {
            failures.push(`#${i} ${call.name}: ${(error as Error).message}`);
          } finally {
            inFlight--;
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };

    try {
      await runUntil(TOTAL / 2);
      const firstHalf = await heapAfterGc();
      await runUntil(TOTAL);
      const secondHalf = await heapAfterGc();

      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} failed calls`);
      assert.equal(failures.length, 0);
      assert.equal(maxInFlight, CONCURRENCY);
      // Every call answered correctly, tool by tool (8 call shapes cycled over 10,000 calls).
      assert.deepEqual(Object.fromEntries([...okByTool].sort()), {
        aggregate: 1250,
        fetch: 1250,
        query_records: 2500,
        read_record_field: 1250,
        schema: 1250,
        search: 2500,
      });
      t.diagnostic(
        `${forceGc ? "heapUsed after GC" : "RSS"}: ${(firstHalf / 1e6).toFixed(1)} MB after ${TOTAL / 2} calls, ` +
          `${(secondHalf / 1e6).toFixed(1)} MB after ${TOTAL}`,
      );
      const margin = forceGc ? HEAP_MARGIN_BYTES : RSS_MARGIN_BYTES;
      const growth = secondHalf - firstHalf;
      assert.ok(
        growth <= margin,
        `${forceGc ? "heapUsed" : "RSS"} grew ${(growth / 1e6).toFixed(1)} MB over the second ` +
          `${TOTAL / 2} calls (margin ${(margin / 1e6).toFixed(1)} MB): ${firstHalf} → ${secondHalf}`,
      );
    } finally {
      agent.destroy();
    }
  });
});
