// `pdpp mcp --token-file F` where F holds an owner token (issue 8, finding 8): the spawned CLI exits
// 77 (owner token refused) with one clear stderr line that names the file and never the token.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { errorLines, runPdpp, tempDir } from "./run-cli.js";

describe("pdpp mcp --token-file with an owner token", () => {
  const tmp = tempDir();
  const home = join(tmp.dir, "home");
  let ownerToken = "";
  after(() => tmp.cleanup());

  before(async () => {
    const init = await runPdpp(["init"], { home });
    assert.equal(init.code, 0, init.stderr);
    ownerToken = readFileSync(join(home, "owner-token"), "utf8").trim();
  });

  const files = (): [string, string][] => [
    ["the home's owner-token file", join(home, "owner-token")],
    ["a credentials file naming the store", write("saved.json", { token: ownerToken, store: home })],
    [
      "a credentials file naming a provider",
      write("remote.json", { token: ownerToken, provider_url: "http://127.0.0.1:9" }),
    ],
  ];

  function write(name: string, body: unknown): string {
    const path = join(tmp.dir, name);
    writeFileSync(path, JSON.stringify(body), { mode: 0o600 });
    return path;
  }

  it("exits 77 with one stderr line, whatever form the file has", async () => {
    for (const [what, file] of files()) {
      const result = await runPdpp(["mcp", "--token-file", file], { home });
      assert.equal(result.code, 77, `${what}: ${result.stderr}`);
      const lines = errorLines(result);
      assert.equal(lines.length, 1, `${what}: ${result.stderr}`);
      assert.match(lines[0], /^pdpp mcp: refusing --token-file .+: it holds an owner token; /);
      assert.ok(!result.stderr.includes(ownerToken), "the token is never printed");
      assert.equal(result.stdout, "", "stdout carries only JSON-RPC");
    }
  });

  it("a file holding no token at all is still a plain user error (exit 1)", async () => {
    const result = await runPdpp(["mcp", "--token-file", write("empty.json", {})], { home });
    assert.equal(result.code, 1, result.stderr);
    assert.match(errorLines(result)[0], /must hold a client token/);
  });
});
