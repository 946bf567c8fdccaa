// `pdpp serve` as a real process: prints its URLs, answers the RS over HTTP, stops on SIGTERM.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { BIN, cliEnv, REPO_ROOT, runPdpp, tempDir } from "./run-cli.js";

/** Resolve with stdout once `pattern` shows up in it (or reject when the process exits first). */
function waitForOutput(child: ReturnType<typeof spawn>, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = pattern.exec(stdout);
      if (match) resolve(match);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("exit", (code) =>
      reject(new Error(`serve exited (${code}) before printing: ${stderr}${stdout}`)),
    );
  });
}

describe("pdpp serve", () => {
  it("prints the URL and /mcp, answers GET /v1/token for the owner, exits 0 on SIGTERM", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
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
      } finally {
        child.kill("SIGTERM");
      }
      assert.equal(await exited, 0);
    } finally {
      tmp.cleanup();
    }
  });
});
