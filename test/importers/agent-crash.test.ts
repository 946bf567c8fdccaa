// Crash safety of the folder importers: kill -9 a Claude Code import mid-run (with a state folder), then
// re-run: no file is remembered as read, whole batches only, no duplicates, counts that add up.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { newToken } from "../../src/core/ids.js";
import { CLAUDE_CODE_MANIFEST } from "../../src/importers/claude-code.js";
import { importFile } from "../../src/importers/import-file.js";
import { buildClaudeCodeSession } from "../../src/sample/agent-sample.js";
import { createRng } from "../../src/sample/prng.js";
import { storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

const CHILD = fileURLToPath(new URL("../helpers-importers/import-child.ts", import.meta.url));
const SESSIONS = 60;
const BATCH = 100;

test("kill -9 during a claude-code import, then re-run: whole batches only, no duplicates", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-agent-crash-"));
  try {
    await crashAndRerun(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

async function crashAndRerun(dir: string): Promise<void> {
  const ownerToken = newToken("owner");
  const dbPath = join(dir, "pdpp.db");
  const projects = join(dir, "projects");
  const root = join(projects, "-crash");
  mkdirSync(root, { recursive: true });
  const rng = createRng(9);
  for (let s = 0; s < SESSIONS; s++) {
    const id = `0000${s}`.slice(-4);
    writeFileSync(
      join(root, `${id}.jsonl`),
      buildClaudeCodeSession(rng, {
        sessionId: id,
        startMs: Date.UTC(2025, 0, 1) + s * 3_600_000,
        cwd: "/c",
        turns: 12,
      }),
    );
  }
  const stateDir = join(dir, "import-state");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CHILD, dbPath, projects, ownerToken, String(BATCH), "claude-code", "{}", stateDir],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exit = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
      if (/batch 3 /.test(output)) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    child.on("exit", () => reject(new Error(`child ended before the kill: ${output}`)));
  });
  assert.equal(await exit, "SIGKILL");
  assert.ok(!output.includes("done"), "the import was still running when killed");
  assert.equal(existsSync(stateDir), false, "nothing is remembered as read after a crash");

  const reopened = await openOwnerApp({ path: dbPath, ownerToken });
  try {
    const before = (await storedRecords(reopened.store, CLAUDE_CODE_MANIFEST, "messages")).size;
    assert.ok(before >= 3 * BATCH, `stored ${before}`);
    assert.equal(before % BATCH, 0, "only whole batches were committed");
    const rerun = await importFile(reopened.api, {
      kind: "claude-code",
      path: projects,
      connectionLabel: "Crash mail",
      stateDir,
      batchSize: BATCH,
    });
    const messages = await storedRecords(reopened.store, CLAUDE_CODE_MANIFEST, "messages");
    const total = messages.size;
    assert.ok(total > before);
    assert.deepEqual(rerun.perStream.messages, {
      added: total - before,
      updated: 0,
      unchanged: before,
      rejected: 0,
    });
    assert.deepEqual(rerun.perStream.sessions, { added: SESSIONS, updated: 0, unchanged: 0, rejected: 0 });
    assert.equal((await storedRecords(reopened.store, CLAUDE_CODE_MANIFEST, "sessions")).size, SESSIONS);
    const again = await importFile(reopened.api, {
      kind: "claude-code",
      path: projects,
      connectionLabel: "Crash mail",
      stateDir,
    });
    assert.deepEqual(
      [again.added, again.updated, again.unchanged, again.files?.files],
      [0, 0, total + SESSIONS, SESSIONS],
    );
  } finally {
    await reopened.close();
  }
}
