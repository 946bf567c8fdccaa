// Hosted /mcp's one process-wide dispatcher and the access-log labels of in-process calls: callers
// never see each other's answers (even with the same JSON-RPC ids), the transport's HTTP answers
// stay as the SDK gives them, and a session's internal schema lookups are not logged as reads.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { hashToken, newGrantId, newToken } from "../../src/core/ids.js";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { createApp } from "../../src/rs/app.js";
import { BASE_URL, buildWorld, type World } from "./fixtures/world.js";
import { call } from "./helpers.js";

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

describe("hosted dispatcher and access-log labels", () => {
  let world: World;
  let homeToken: string;
  let homeGrant: string;
  let post: (token: string, body: unknown, headers?: Record<string, string>) => Promise<Response>;
  before(async () => {
    world = await buildWorld();
    homeToken = newToken("client");
    homeGrant = newGrantId();
    await world.store.createGrant({
      grant_id: homeGrant,
      client_name: "home-only",
      purpose: "tests",
      created_at: new Date().toISOString(),
      expires_at: null,
      revoked_at: null,
      streams: [{ stream: "messages", connector_key: "mail", connections: [world.home], fields: "all" }],
      token_hash: hashToken(homeToken),
    });
    let app: ReturnType<typeof createApp> | undefined;
    const mcp = createHostedMcpHandler({
      rsFetch: (r, env) => (app as ReturnType<typeof createApp>).fetch(r, env),
    });
    app = createApp({ store: world.store, bindHost: "127.0.0.1", publicUrl: BASE_URL, mcp });
    const hosted = app;
    post = async (token, body, headers = JSON_HEADERS) =>
      hosted.request("/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
  });
  after(async () => world.close());

  const searchCall = (id: number | string) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "search", arguments: { query: "zebra" } },
  });

  test("concurrent callers with the same JSON-RPC id each get their own grant's answer", async () => {
    const rounds = 20;
    const answers = await Promise.all(
      Array.from({ length: rounds * 2 }, (_, i) =>
        post(i % 2 === 0 ? world.token : homeToken, searchCall(1)).then(async (r) => ({
          home: i % 2 === 1,
          status: r.status,
          body: (await r.json()) as {
            id: number;
            result: { structuredContent: { results: { id: string }[] } };
          },
        })),
      ),
    );
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.equal(a.body.id, 1);
      const ids = a.body.result.structuredContent.results.map((r) => r.id).sort();
      const expected = a.home
        ? [`${world.home}/messages:shared-1`]
        : [
            `${world.home}/messages:shared-1`,
            `${world.work}/messages:long-1`,
            `${world.work}/messages:shared-1`,
          ].sort();
      assert.deepEqual(ids, expected);
    }
  });

  test("a batch answers in order with the caller's ids; notifications alone are 202", async () => {
    const r = await post(world.token, [
      { jsonrpc: "2.0", id: "b", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } },
      { jsonrpc: "2.0", id: 7, method: "tools/list" },
    ]);
    assert.equal(r.status, 200);
    const body = (await r.json()) as { id: unknown; result: { tools?: unknown[] } }[];
    assert.deepEqual(
      body.map((m) => m.id),
      ["b", 7],
    );
    assert.equal(body[1].result.tools?.length, 6);
    const n = await post(world.token, { jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(n.status, 202);
    assert.equal(await n.text(), "");
  });

  test("malformed requests get the transport's JSON-RPC errors", async () => {
    const bad = await post(world.token, "{nope");
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
    // JSON that is no JSON-RPC message from a 2025 client: a parse error, as before SDK v2.
    const notRpc = await post(world.token, { hello: 1 });
    assert.equal(notRpc.status, 400);
    assert.equal(((await notRpc.json()) as { error: { code: number } }).error.code, -32700);
    const media = await post(world.token, searchCall(1), { "content-type": "text/plain" });
    assert.equal(media.status, 415);
    const version = await post(world.token, searchCall(1), {
      ...JSON_HEADERS,
      "mcp-protocol-version": "1999-01-01",
    });
    assert.equal(version.status, 400);
    const init = await post(world.token, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    assert.equal(init.status, 200);
    const result = (
      (await init.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } }
    ).result;
    assert.equal(result.protocolVersion, "2025-06-18");
    assert.equal(result.serverInfo.name, "pdpp");
  });

  test("hosted reads are logged under the tool, per grant", async () => {
    await post(homeToken, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "fetch", arguments: { id: `${world.home}/messages:home-2` } },
    });
    const rows = await world.store.listAccessLog({ limit: 1000, grantId: homeGrant });
    assert.ok(rows.length > 0);
    assert.ok(
      rows.every((e) => e.route.startsWith("mcp:")),
      JSON.stringify(rows.map((e) => e.route)),
    );
    assert.equal(rows[0].route, "mcp:fetch");
    assert.equal(rows[0].record_count, 1);
  });

  test("a session's first schema lookup is not logged as a 0-record read (9.13)", async () => {
    // The same wiring as `pdpp mcp --store`: a fresh server with an empty schema cache.
    const client = await world.client();
    const before = (await world.store.listAccessLog({ limit: 10_000 })).length;
    const doc = await call(client, "fetch", { id: `${world.work}/messages:long-1` });
    assert.equal(doc.isError, false);
    const page = await call(client, "query_records", { stream: "messages", limit: 2 });
    assert.equal(page.isError, false);
    const all = await world.store.listAccessLog({ limit: 10_000 });
    const rows = all.slice(0, all.length - before);
    assert.deepEqual(rows.map((e) => [e.route, e.stream, e.record_count]).reverse(), [
      ["mcp:fetch", "messages", 1],
      ["mcp:query_records", "messages", 2],
    ]);
    await client.close();
  });
});
