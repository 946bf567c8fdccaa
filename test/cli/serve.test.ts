// `pdpp serve` as a real process: prints its URLs, answers the RS over HTTP, stops on SIGTERM.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, cliEnv, REPO_ROOT, runPdpp, tempDir, waitForOutput } from "./run-cli.js";

describe("pdpp serve", () => {
  it("prints the URL and /mcp, answers GET /v1/token for the owner, exits 0 on SIGTERM", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
      const notes = join(tmp.dir, "notes.jsonl");
      writeFileSync(notes, '{"id":"n1","at":"2024-05-01T10:00:00Z","body":"buy saffron for the paella"}\n');
      const imported = await runPdpp(
        ["import", "jsonl", notes, "--infer", "--connector", "notes", "--stream", "notes"],
        {
          home,
        },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const granted = await runPdpp(["grant", "create", "--client", "web", "--stream", "notes:notes"], {
        home,
      });
      assert.equal(granted.code, 0, granted.stderr);
      const clientToken = /(pdpp_ct_\S+)/.exec(granted.stdout)?.[1] as string;
      const ownerToken = readFileSync(join(home, "owner-token"), "utf8").trim();
      const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
        cwd: REPO_ROOT,
        env: cliEnv(home),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        const match = await waitForOutput(
          child,
          /^url: +(http:\/\/127\.0\.0\.1:(\d+))\n[\s\S]*^mcp: +(\S+)/m,
        );
        const [, url, port, mcpUrl] = match;
        assert.notEqual(Number(port), 0);
        assert.equal(mcpUrl, `${url}/mcp`);
        const response = await fetch(`${url}/v1/token`, {
          headers: { authorization: `Bearer ${ownerToken}` },
        });
        assert.equal(response.status, 200);
        const body = (await response.json()) as { kind: string; expires_at: unknown };
        assert.equal(body.kind, "owner");
        const anonymous = await fetch(`${url}/v1/token`);
        assert.equal(anonymous.status, 401);

        // Hosted MCP on the same server, with the client token: the whole search → fetch path.
        const client = new Client({ name: "serve-test", version: "1" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(mcpUrl), {
            requestInit: { headers: { authorization: `Bearer ${clientToken}` } },
          }),
        );
        try {
          const search = await client.callTool({ name: "search", arguments: { query: "saffron" } });
          const hits = (search.structuredContent as { results: { id: string; url: string }[] }).results;
          assert.equal(hits.length, 1, JSON.stringify(search.content));
          assert.ok(hits[0].url.startsWith(`${url}/v1/streams/notes/records/`), hits[0].url);
          const fetched = await client.callTool({ name: "fetch", arguments: { id: hits[0].id } });
          // An inferred manifest has no long text field here, so the document text is the record JSON.
          assert.match(
            (fetched.structuredContent as { text: string }).text,
            /"body":"buy saffron for the paella"/,
          );
        } finally {
          await client.close();
        }
        const refused = await fetch(mcpUrl, {
          method: "POST",
          headers: {
            authorization: `Bearer ${ownerToken}`,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        assert.equal(refused.status, 403);
      } finally {
        child.kill("SIGTERM");
      }
      assert.equal(await exited, 0);
    } finally {
      tmp.cleanup();
    }
  });

  it("--workers 2 serves one port from two processes; a clean stop loses no access-log row", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
      const notes = join(tmp.dir, "notes.jsonl");
      writeFileSync(notes, '{"id":"n1","at":"2024-05-01T10:00:00Z","body":"saffron"}\n');
      const args = ["import", "jsonl", notes, "--infer", "--connector", "notes", "--stream", "notes"];
      assert.equal((await runPdpp(args, { home })).code, 0);
      const granted = await runPdpp(["grant", "create", "--client", "web", "--stream", "notes:notes"], {
        home,
      });
      const clientToken = /(pdpp_ct_\S+)/.exec(granted.stdout)?.[1] as string;
      const bad = await runPdpp(["serve", "--workers", "0"], { home });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--workers must be an integer from 1 to 256/);
      const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--workers", "2"], {
        cwd: REPO_ROOT,
        env: cliEnv(home),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const reads = 24;
      try {
        const [, url] = await waitForOutput(child, /2 workers\)\nurl: +(http:\/\/127\.0\.0\.1:\d+)\n/);
        const statuses = await Promise.all(
          Array.from({ length: reads }, () =>
            fetch(`${url}/v1/streams/notes/records?limit=1`, {
              headers: { authorization: `Bearer ${clientToken}` },
            }).then((r) => r.status),
          ),
        );
        assert.deepEqual(new Set(statuses), new Set([200]));
      } finally {
        child.kill("SIGTERM");
      }
      assert.equal(await exited, 0);
      // Each worker buffers its rows; closing flushes them.
      const audit = await runPdpp(["audit", "--limit", "100"], { home });
      assert.equal(audit.code, 0, audit.stderr);
      assert.equal(
        audit.stdout.split("\n").filter((line) => line.includes("GET /v1/streams/:stream/records")).length,
        reads,
      );
    } finally {
      tmp.cleanup();
    }
  });
});
