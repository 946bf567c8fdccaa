// Error codes by era, over hosted /mcp and over stdio: a 2025-era client gets the codes pdpp gave
// it before SDK v2 (a resource not found is -32002; JSON that is no JSON-RPC message is -32700 over
// HTTP, ignored on stdio), a 2026-07-28 client gets that revision's (-32602; -32600).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { recordUri } from "../../src/core/render/handles.js";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { createApp } from "../../src/rs/app.js";
import { BASE_URL, buildWorld, type World } from "./fixtures/world.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "pdpp.js");
const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "codes-test", version: "1" },
};

type Rpc = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** JSON bodies that are no JSON-RPC message (before SDK v2, each was a -32700 over HTTP). */
const NOT_JSON_RPC: unknown[] = [
  { hello: 1 },
  { jsonrpc: "2.0", id: 7 },
  [1, 2],
  "text",
  { jsonrpc: "2.0", id: 8, method: "tools/call", params: 5 },
];

describe("error codes by protocol era", () => {
  let world: World;
  let missing: string;
  let post: (body: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: Rpc }>;
  before(async () => {
    world = await buildWorld();
    missing = recordUri({ c: world.work, s: "messages", r: "no-such-record" });
    let app: ReturnType<typeof createApp> | undefined;
    const mcp = createHostedMcpHandler({
      rsFetch: (r, env) => (app as ReturnType<typeof createApp>).fetch(r, env),
    });
    app = createApp({ store: world.store, bindHost: "127.0.0.1", publicUrl: BASE_URL, mcp });
    const hosted = app;
    post = async (body, headers = {}) => {
      const r = await hosted.request("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${world.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, body: (text ? JSON.parse(text) : {}) as Rpc };
    };
  });
  after(async () => world.close());

  test("HTTP, 2025 client: resource not found -32002, a malformed handle -32602, the RS body in data", async () => {
    const gone = await post({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: missing } });
    assert.equal(gone.status, 200);
    assert.equal(gone.body.error?.code, -32002);
    assert.equal((gone.body.error?.data as { code?: string } | undefined)?.code, "record_not_found");
    const malformed = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "resources/read",
      params: { uri: "pdpp://record/xx" },
    });
    assert.equal(malformed.body.error?.code, -32602);
  });

  test("HTTP, 2026-07-28 client: resource not found is -32602 with the uri in data", async () => {
    const gone = await post(
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: missing, _meta: ENVELOPE } },
      { "mcp-protocol-version": MODERN, "mcp-method": "resources/read", "mcp-name": missing },
    );
    assert.equal(gone.body.error?.code, -32602);
    assert.equal((gone.body.error?.data as { uri?: string } | undefined)?.uri, missing);
  });

  test("HTTP: JSON that is no JSON-RPC message: 400 -32700 id null for a 2025 client, -32600 under a 2026-07-28 header", async () => {
    for (const body of NOT_JSON_RPC) {
      const legacy = await post(body);
      assert.deepEqual(
        [legacy.status, legacy.body.error?.code, legacy.body.id],
        [400, -32700, null],
        JSON.stringify(body),
      );
      const legacyHeader = await post(body, { "mcp-protocol-version": "2025-11-25" });
      assert.equal(legacyHeader.body.error?.code, -32700, JSON.stringify(body));
      const modern = await post(body, { "mcp-protocol-version": MODERN });
      assert.deepEqual([modern.status, modern.body.error?.code], [400, -32600], JSON.stringify(body));
    }
    // An empty batch carries nothing to act on, as before: accepted.
    const empty = await post([]);
    assert.deepEqual([empty.status, empty.body], [202, {}]);
  });

  test("stdio: a 2025 session gets -32002 and ignores lines that are no JSON-RPC message; a 2026-07-28 session gets -32602", async () => {
    for (const era of ["2025", "2026"] as const) {
      const child = spawn(process.execPath, [BIN, "mcp", "--store", world.dir], {
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PDPP_TOKEN: world.token },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      const exchange = async (message: unknown): Promise<Rpc> => {
        send(message);
        const { value } = await lines.next();
        return JSON.parse(String(value)) as Rpc;
      };
      const meta = era === "2026" ? { _meta: ENVELOPE } : {};
      try {
        if (era === "2025") {
          const init = await exchange({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "t", version: "1" },
            },
          });
          assert.ok(init.result, JSON.stringify(init));
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          for (const body of NOT_JSON_RPC) send(body);
        }
        const gone = await exchange({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: { uri: missing, ...meta },
        });
        // The lines before it got no answer: the next line on stdout answers id 1.
        assert.equal(gone.id, 1);
        assert.equal(gone.error?.code, era === "2025" ? -32002 : -32602, JSON.stringify(gone));
        assert.equal((gone.error?.data as { code?: string } | undefined)?.code, "record_not_found");
      } finally {
        child.stdin.end();
        await new Promise((resolve) => child.once("exit", resolve));
      }
      if (era === "2025") {
        // One stderr line per ignored line, not the validator's issue list.
        const ignored = stderr.split("\n").filter((l) => l.includes("not a JSON-RPC message"));
        assert.equal(ignored.length, NOT_JSON_RPC.length, stderr);
        assert.ok(!stderr.includes("invalid_union"), stderr);
      }
    }
  });
});
