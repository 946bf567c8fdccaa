// End to end over real transports: a spawned `pdpp mcp` (stdio, --store and --provider-url) and
// hosted POST /mcp on a real HTTP server; owner tokens refused on both (exit 77 / 403).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hashToken, newToken } from "../../src/core/ids.js";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { type Served, serveWorld } from "./fixtures/served.js";
import { buildWorld, type World } from "./fixtures/world.js";

// The real `pdpp` command (bin/pdpp.js → src/cli/main.ts, which registers src/cli/commands/mcp.ts).
const BIN = join(import.meta.dirname, "..", "..", "bin", "pdpp.js");
const NODE_ARGS = [BIN, "mcp"];

/** Spawn without blocking the event loop: the RS answering the child lives in this process. */
function runRefused(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const clean = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { env: { ...clean, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdin.end();
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("transports", () => {
  let world: World;
  let url: string;
  let served: Served;
  let ownerToken: string;
  before(async () => {
    world = await buildWorld();
    ownerToken = newToken("owner");
    await world.store.putOwnerToken(hashToken(ownerToken));
    served = await serveWorld(world);
    url = served.url;
  });
  after(async () => {
    await served.close();
    await world.close();
  });

  test("stdio: spawned pdpp mcp --provider-url runs the journey; stdout is JSON-RPC only", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...NODE_ARGS, "--provider-url", url],
      env: { PDPP_TOKEN: world.token },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      assert.equal(tools.tools.length, 6);
      const hits = await client.callTool({ name: "search", arguments: { query: "quarterly archive" } });
      const id = (hits.structuredContent as { results: { id: string }[] }).results[0].id;
      const doc = await client.callTool({ name: "fetch", arguments: { id } });
      assert.equal((doc.structuredContent as { title: string }).title, "Quarterly ledger archive");
    } finally {
      await client.close();
    }
  });

  test("stdio: spawned pdpp mcp --store opens the local store in-process, still grant-scoped", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...NODE_ARGS, "--store", world.dir],
      env: { PDPP_TOKEN: world.token },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-store-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const index = await client.callTool({ name: "schema", arguments: {} });
      assert.match((index.content as { text: string }[])[0].text, /messages: 10 records/);
      const w = await client.callTool({
        name: "read_record_field",
        arguments: { id: `${world.work}/messages:long-1`, field_path: "body", q: "ENDMARKER" },
      });
      assert.ok(
        (w.structuredContent as { window: { text: string } }).window.text.endsWith("ENDMARKER-zebra-final"),
      );
    } finally {
      await client.close();
    }
  });

  test("stdio: owner tokens refused with exit 77 and one stderr line, by prefix, env and introspection", async () => {
    const byPrefix = await runRefused(["--provider-url", url], { PDPP_TOKEN: ownerToken });
    assert.equal(byPrefix.status, 77);
    assert.equal(byPrefix.stdout, "");
    assert.equal(byPrefix.stderr.trim().split("\n").length, 1);
    assert.match(byPrefix.stderr, /owner token/);
    assert.ok(!byPrefix.stderr.includes(ownerToken));
    const inEnv = await runRefused(["--provider-url", url], {
      PDPP_TOKEN: world.token,
      SOME_OTHER: ownerToken,
    });
    assert.equal(inEnv.status, 77);
    assert.match(inEnv.stderr, /SOME_OTHER/);
    // A bearer the server says is an owner, whatever it looks like.
    const disguised = `legacy_${"d".repeat(43)}`;
    await world.store.putOwnerToken(hashToken(disguised));
    const introspected = await runRefused(["--provider-url", url], { PDPP_TOKEN: disguised });
    assert.equal(introspected.status, 77);
    assert.match(introspected.stderr, /server says so/);
  });

  test("hosted: POST /mcp with the SDK Streamable HTTP client runs the journey", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.token}` } },
    });
    const client = new Client({ name: "http-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      assert.equal((await client.listTools()).tools.length, 6);
      const hits = await client.callTool({ name: "search", arguments: { query: "zebra" } });
      const results = (hits.structuredContent as { results: { id: string }[] }).results;
      assert.ok(results.length >= 2);
      const w = await client.callTool({
        name: "read_record_field",
        arguments: { id: `${world.work}/messages:long-1`, field_path: "body" },
      });
      assert.equal(
        (w.structuredContent as { field: { size_chars: number } }).field.size_chars,
        world.body.length,
      );
      const log = await world.store.listAccessLog({ limit: 50 });
      assert.ok(
        log.some((e) => e.route === "mcp:read_record_field"),
        "RS logs reads under the tool name",
      );
    } finally {
      await client.close();
    }
  });

  test("hosted: Accept: application/json alone is tolerated; owner token → 403 owner_token_refused", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const ok = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${world.token}`,
        accept: "application/json",
        "content-type": "application/json",
      },
      body,
    });
    assert.equal(ok.status, 200);
    const listed = (await ok.json()) as { result: { tools: { name: string }[] } };
    assert.equal(listed.result.tools.length, 6);
    const owner = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ownerToken}`,
        accept: "application/json",
        "content-type": "application/json",
      },
      body,
    });
    assert.equal(owner.status, 403);
    assert.equal(((await owner.json()) as { error: { code: string } }).error.code, "owner_token_refused");
    // The handler refuses on its own too, wherever it is mounted.
    const handler = createHostedMcpHandler({
      rsFetch: async () => new Response("unreachable", { status: 500 }),
    });
    const direct = await handler(new Request(`${url}/mcp`, { method: "POST", body }), {
      token: ownerToken,
      publicUrl: url,
    });
    assert.equal(direct.status, 403);
  });
});
