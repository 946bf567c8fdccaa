// Protocol 2026-07-28 on the wire, hosted /mcp and stdio: server/discover, per-request envelopes,
// the revision's error codes and HTTP statuses, header validation, and caching hints that are true
// (lists and discovery shared for an hour; a resource read private and not cached; tool results
// carry none). 2025-era answers on the same endpoint carry none of that revision's fields.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { createApp } from "../../src/rs/app.js";
import { BASE_URL, buildWorld, type World } from "./fixtures/world.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "pdpp.js");
const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "wire-test", version: "1" },
};
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "pdpp", version: "0.1.0" } };
const SHARED = { ttlMs: 3_600_000, cacheScope: "public" };

type Rpc = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } };
}

/** The standard headers a 2026-07-28 client sends with `method` (and Mcp-Name when it has one). */
function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name !== undefined && { "mcp-name": name }),
  };
}

describe("protocol 2026-07-28 on the wire", () => {
  let world: World;
  let post: (body: unknown, headers: Record<string, string>) => Promise<{ status: number; body: Rpc }>;
  before(async () => {
    world = await buildWorld();
    let app: ReturnType<typeof createApp> | undefined;
    const mcp = createHostedMcpHandler({
      rsFetch: (r, env) => (app as ReturnType<typeof createApp>).fetch(r, env),
    });
    app = createApp({ store: world.store, bindHost: "127.0.0.1", publicUrl: BASE_URL, mcp });
    const hosted = app;
    post = async (body, headers) => {
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
      return { status: r.status, body: (await r.json()) as Rpc };
    };
  });
  after(async () => world.close());

  test("HTTP: server/discover names the revision, the capabilities, the instructions and pdpp, shared for an hour", async () => {
    const { status, body } = await post(rpc("server/discover"), modernHeaders("server/discover"));
    assert.equal(status, 200);
    const r = body.result as Record<string, unknown>;
    assert.deepEqual(r.supportedVersions, [MODERN]);
    assert.deepEqual(r.capabilities, { tools: {}, resources: {} });
    assert.match(String(r.instructions), /^pdpp: read-only access/);
    assert.deepEqual(
      { resultType: r.resultType, ttlMs: r.ttlMs, cacheScope: r.cacheScope, _meta: r._meta },
      { resultType: "complete", ...SHARED, _meta: SERVER_INFO },
    );
  });

  test("HTTP: caching hints are true: lists shared, a resource read private and uncached, tool results none", async () => {
    for (const method of ["tools/list", "resources/list", "resources/templates/list"]) {
      const { status, body } = await post(rpc(method), modernHeaders(method));
      assert.equal(status, 200, method);
      assert.deepEqual({ ttlMs: body.result?.ttlMs, cacheScope: body.result?.cacheScope }, SHARED, method);
    }
    const listed = await post(rpc("tools/list"), modernHeaders("tools/list"));
    assert.equal((listed.body.result?.tools as unknown[] | undefined)?.length, 6);

    const window = await post(
      rpc("tools/call", {
        name: "read_record_field",
        arguments: { id: `${world.work}/messages:long-1`, field_path: "body", limit_chars: 100 },
      }),
      modernHeaders("tools/call", "read_record_field"),
    );
    assert.equal(window.status, 200);
    const result = window.body.result as { content: { type: string; uri?: string }[] } & Record<
      string,
      unknown
    >;
    assert.equal(result.resultType, "complete");
    assert.equal("ttlMs" in result || "cacheScope" in result, false, "a tool result is not cacheable");
    const uri = result.content.find((c) => c.type === "resource_link")?.uri as string;
    const read = await post(rpc("resources/read", { uri }), modernHeaders("resources/read", uri));
    assert.equal(read.status, 200);
    assert.deepEqual(
      { ttlMs: read.body.result?.ttlMs, cacheScope: read.body.result?.cacheScope },
      {
        ttlMs: 0,
        cacheScope: "private",
      },
    );
  });

  test("HTTP: the revision's errors: header mismatch -32020, unsupported version -32022, unknown method 404 -32601", async () => {
    const missingMethod = await post(rpc("tools/list"), { "mcp-protocol-version": MODERN });
    assert.deepEqual(
      [missingMethod.status, missingMethod.body.error?.code, missingMethod.body.id],
      [400, -32020, 1],
    );
    const missingVersion = await post(rpc("tools/list"), { "mcp-method": "tools/list" });
    assert.deepEqual([missingVersion.status, missingVersion.body.error?.code], [400, -32020]);
    const otherName = await post(
      rpc("tools/call", { name: "schema", arguments: {} }),
      modernHeaders("tools/call", "search"),
    );
    assert.deepEqual([otherName.status, otherName.body.error?.code], [400, -32020]);

    const future = {
      ...rpc("tools/list"),
      params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    };
    const unsupported = await post(future, {
      ...modernHeaders("tools/list"),
      "mcp-protocol-version": "2099-01-01",
    });
    assert.equal(unsupported.status, 400);
    assert.deepEqual(unsupported.body.error, {
      code: -32022,
      message: "Unsupported protocol version: 2099-01-01",
      data: { supported: [MODERN], requested: "2099-01-01" },
    });

    const unknown = await post(rpc("ping"), modernHeaders("ping"));
    assert.deepEqual([unknown.status, unknown.body.error?.code], [404, -32601]);
    const noEnvelope = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      modernHeaders("tools/list"),
    );
    assert.deepEqual([noEnvelope.status, noEnvelope.body.error?.code], [400, -32602]);
    const badHandle = await post(
      rpc("resources/read", { uri: "pdpp://record/xx" }),
      modernHeaders("resources/read", "pdpp://record/xx"),
    );
    assert.equal(badHandle.body.error?.code, -32602);
    assert.deepEqual(badHandle.body.error?.data, {
      type: "invalid_request_error",
      code: "invalid_id",
      message: "resource handle is not valid JSON; use a URI exactly as a tool returned it.",
      param: "uri",
      uri: "pdpp://record/xx",
    });
  });

  test("HTTP: 2025-era answers on the same endpoint carry none of 2026-07-28's fields", async () => {
    const legacy = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {});
    assert.equal(legacy.status, 200);
    assert.deepEqual(Object.keys(legacy.body.result ?? {}), ["tools"]);
    const discover = await post({ jsonrpc: "2.0", id: 2, method: "server/discover" }, {});
    assert.equal(discover.body.error?.code, -32601);
  });

  test("stdio: a 2026-07-28 session discovers, lists, calls and gets the revision's errors", async () => {
    const child = spawn(process.execPath, [BIN, "mcp", "--store", world.dir], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PDPP_TOKEN: world.token },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const exchange = async (message: unknown): Promise<Rpc> => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      const { value } = await lines.next();
      return JSON.parse(String(value)) as Rpc;
    };
    try {
      const discover = await exchange(rpc("server/discover", {}, "d"));
      assert.deepEqual(discover.result?.supportedVersions, [MODERN]);
      assert.deepEqual([discover.result?.ttlMs, discover.result?.cacheScope], [3_600_000, "public"]);
      const tools = await exchange(rpc("tools/list", {}, 2));
      assert.equal((tools.result?.tools as unknown[] | undefined)?.length, 6);
      const index = await exchange(rpc("tools/call", { name: "schema", arguments: {} }, 3));
      assert.equal(index.result?.resultType, "complete");
      assert.deepEqual(index.result?._meta, SERVER_INFO);
      assert.match(
        String((index.result?.content as { text: string }[] | undefined)?.[0]?.text),
        /messages: 10 records/,
      );
      const future = await exchange({
        ...rpc("tools/list", {}, 4),
        params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      });
      assert.equal(future.error?.code, -32022, JSON.stringify(future));
      const missing = await exchange({ jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: {} } });
      assert.equal(missing.error?.code, -32602);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
