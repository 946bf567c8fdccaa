// The MCP conformance suite's `dns-rebinding-protection` scenario, replayed against `pdpp serve`'s
// assembly (src/server.ts): an initialize POST with a foreign Host/Origin must get a 4xx, the same
// POST with the server's own localhost Host/Origin a 2xx. The official runner needs Node 22, and
// it sends no bearer; /mcp requires one, so the valid request here carries a client token.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { startServer } from "../../src/server.js";
import { buildWorld, type World } from "./fixtures/world.js";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "conformance-dns-rebinding-test", version: "1.0.0" },
  },
});

function post(url: string, host: string, token: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: "/mcp",
        method: "POST",
        headers: {
          host,
          origin: `http://${host}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(INITIALIZE);
  });
}

describe("dns-rebinding-protection on /mcp", () => {
  let world: World;
  let server: { url: string; close(): Promise<void> };
  before(async () => {
    world = await buildWorld();
    server = await startServer({ store: world.store, host: "127.0.0.1", port: 0 });
  });
  after(async () => {
    await server.close();
    await world.close();
  });

  test("a foreign Host/Origin is refused with 403 invalid_host, even with a valid token", async () => {
    const answer = await post(server.url, "evil.example.com", world.token);
    assert.equal(answer.status, 403);
    assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, "invalid_host");
  });

  test("the server's own localhost Host/Origin is accepted", async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const answer = await post(server.url, host, world.token);
      assert.equal(answer.status, 200, `${host}: ${answer.body}`);
      const parsed = JSON.parse(answer.body) as { result: { serverInfo: { name: string } } };
      assert.equal(parsed.result.serverInfo.name, "pdpp");
    }
  });
});
