// `pdpp owner passphrase --stdin` stores a scrypt hash (never the passphrase); `pdpp console` prints
// a one-time link whose token is stored only as a hash.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { hashToken } from "../../src/core/ids.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { verifyPassphrase } from "../../src/web/passphrase.js";
import { BIN, type CliResult, cliEnv, REPO_ROOT, runPdpp, tempDir } from "./run-cli.js";

function runWithStdin(args: string[], home: string, input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: cliEnv(home) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("pdpp owner passphrase / pdpp console", () => {
  it("sets the passphrase from stdin as a scrypt hash and prints a one-time sign-in link", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
      const short = await runWithStdin(["owner", "passphrase", "--stdin"], home, "too short\n");
      assert.equal(short.code, 1);
      assert.equal(short.stderr, "pdpp: the passphrase must have at least 12 characters.\n");

      const set = await runWithStdin(["owner", "passphrase", "--stdin"], home, "a long enough passphrase\n");
      assert.equal(set.code, 0, set.stderr);
      assert.doesNotMatch(set.stdout + set.stderr, /long enough/);
      const link = await runPdpp(["console", "--url", "http://127.0.0.1:7799/"], { home });
      assert.equal(link.code, 0, link.stderr);
      const token = /^http:\/\/127\.0\.0\.1:7799\/signin\/link\?token=([A-Za-z0-9_-]{43})$/m.exec(
        link.stdout,
      )?.[1];
      assert.ok(token, link.stdout);

      const db = readFileSync(join(home, "pdpp.db"));
      assert.equal(db.includes("a long enough passphrase"), false);
      assert.equal(db.includes(token), false);
      const store = await openSqliteStore({ path: join(home, "pdpp.db") });
      try {
        const hash = await store.getOwnerPassphraseHash();
        assert.match(hash ?? "", /^\$scrypt\$ln=17,r=8,p=1\$/);
        assert.equal(await verifyPassphrase("a long enough passphrase", hash), true);
        assert.ok(await store.getOwnerSecret(hashToken(token), "signin_link"));
      } finally {
        await store.close();
      }
      const bad = await runPdpp(["console", "--url", "ftp://x"], { home });
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr, "pdpp: --url must be an http:// or https:// URL.\n");
    } finally {
      tmp.cleanup();
    }
  });
});
