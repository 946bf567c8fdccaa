// A real third-party OAuth MCP client, mcp-remote, against a real `pdpp serve` on 127.0.0.1:
// it discovers the metadata, registers by DCR, and "opens a browser" — $BROWSER is a script that
// records the URL — where the test plays the owner (the consent page's approveAuthorization on
// the same home's store), then follows the redirect to mcp-remote's callback. A tool call through
// mcp-remote then sees only the granted stream.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Manifest } from "../../src/core/manifest.js";
import { approveAuthorization } from "../../src/oauth/pending.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { BIN, cliEnv, REPO_ROOT, runPdpp, tempDir } from "../cli/run-cli.js";
import { call } from "../mcp/helpers.js";

const MCP_REMOTE = join(REPO_ROOT, "node_modules", "mcp-remote", "dist", "proxy.js");

function noteManifest(name: string): Manifest {
  return {
    connector_key: name,
    display_name: name,
    version: "1",
    streams: [
      {
        name,
        primary_key: ["id"],
        time_field: "at",
        schema: {
          type: "object",
          properties: { id: { type: "string" }, at: { type: "string" }, body: { type: "string" } },
        },
        query: { search: ["body"] },
      },
    ],
  };
}

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free port for mcp-remote's OAuth callback, below Linux's ephemeral range (32768–60999), so an
 * outgoing connection of a test running alongside cannot take it before mcp-remote binds it.
 */
async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (await portIsFree(port)) return port;
  }
  throw new Error("no free port in 20000–29999 for the OAuth callback");
}

/**
 * The browser's redirect to mcp-remote's callback. mcp-remote opens the browser before its callback
 * server listens (its stderr prints the URL, then "Initializing auth coordination on-demand"), so
 * a fast "user" can arrive first; a person takes seconds, a loaded CI machine sometimes does not.
 * Retried while the port refuses connections; the callback is only ever delivered once.
 */
async function deliverCallback(url: string, timeoutMs = 30_000): Promise<Response> {
  const started = Date.now();
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      const code = ((error as Error).cause as { code?: string } | undefined)?.code;
      if (code !== "ECONNREFUSED" || Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function waitFor<T>(what: string, probe: () => T | null, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = probe();
      if (value !== null) return resolve(value);
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 100);
    };
    tick();
  });
}

async function startServe(home: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
    cwd: REPO_ROOT,
    env: cliEnv(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  const url = await waitFor(
    "pdpp serve",
    () => /^url: +(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1] ?? null,
  );
  return { child, url };
}

describe("mcp-remote (a real third-party OAuth client) against pdpp serve", () => {
  it("authorizes through DCR and consent, then calls search seeing only the granted stream", async () => {
    const tmp = tempDir("pdpp-mcp-remote-");
    const home = join(tmp.dir, "home");
    let serve: ChildProcess | undefined;
    let client: Client | undefined;
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
      // Two connectors written straight into the home's store (faster than two CLI imports).
      const seed = await openSqliteStore({ path: join(home, "pdpp.db") });
      try {
        for (const [name, body] of [
          ["notes", "saffron for the paella"],
          ["diary", "secret saffron diary entry"],
        ]) {
          await seed.putManifest(noteManifest(name));
          const conn = await seed.ensureConnection(name, `${name} file`);
          await seed.applyBatch(conn.connection_id, name, [
            { op: "upsert", data: { id: `${name}-1`, at: "2024-05-01T10:00:00Z", body } },
          ]);
        }
      } finally {
        await seed.close();
      }
      const started = await startServe(home);
      serve = started.child;
      const browserLog = join(tmp.dir, "browser-urls.txt");
      const browser = join(tmp.dir, "fake-browser.sh");
      writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${browserLog}'\nexit 0\n`);
      chmodSync(browser, 0o755);
      const callbackPort = await freePort();

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MCP_REMOTE, `${started.url}/mcp`, String(callbackPort), "--host", "127.0.0.1"],
        env: {
          PATH: process.env.PATH ?? "",
          HOME: tmp.dir,
          MCP_REMOTE_CONFIG_DIR: join(tmp.dir, "mcp-auth"),
          BROWSER: browser,
          DISPLAY: "",
        },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
      });
      client = new Client({ name: "mcp-remote-test", version: "1.0.0" });
      const connecting = client.connect(transport);

      // The "browser": the authorization URL, from $BROWSER or mcp-remote's printed fallback.
      const authorizeUrl = await waitFor("the authorization URL", () => {
        if (existsSync(browserLog)) return readFileSync(browserLog, "utf8").trim().split("\n")[0] || null;
        return /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1] ?? null;
      });
      assert.ok(authorizeUrl.startsWith(`${started.url}/authorize?`), authorizeUrl);
      const consent = await fetch(authorizeUrl, { redirect: "manual" });
      assert.equal(consent.status, 302, await consent.text());
      const pendingId = /^\/consent\/(pa_\S+)$/.exec(consent.headers.get("location") ?? "")?.[1] as string;
      assert.ok(pendingId, consent.headers.get("location") ?? "no location");

      // The owner approves one stream (what the consent page does), on the same home's store.
      const store = await openSqliteStore({ path: join(home, "pdpp.db") });
      let redirectTo: string;
      try {
        ({ redirectTo } = await approveAuthorization({ store, publicUrl: started.url }, pendingId, {
          streams: [{ stream: "notes", connector_key: "notes" }],
        }));
      } finally {
        await store.close();
      }
      assert.ok(redirectTo.startsWith(`http://127.0.0.1:${callbackPort}/oauth/callback?`), redirectTo);
      const callback = await deliverCallback(redirectTo).catch((error: Error) => {
        throw new Error(
          `the callback to mcp-remote failed (${error.cause ?? error.message}); its stderr:\n${stderr}`,
        );
      });
      assert.equal(callback.status, 200, await callback.text());

      await connecting;
      const found = await call(client, "search", { query: "saffron" });
      assert.equal(found.isError, false, found.text);
      const results = found.structured.results as { id: string }[];
      assert.equal(results.length, 1, found.text);
      assert.match(results[0].id, /\/notes:/);
      assert.ok(!found.text.includes("diary"), "the diary stream was not granted");
    } finally {
      await client?.close().catch(() => {});
      serve?.kill("SIGTERM");
      tmp.cleanup();
    }
  });
});
