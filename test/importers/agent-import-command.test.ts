// `pdpp import claude-code` and `pdpp import codex` through the real CLI: the default folders
// ($CLAUDE_CONFIG_DIR/projects, $CODEX_HOME/sessions), the summary's files line, the home's state.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runPdpp, tempDir } from "../cli/run-cli.js";
import { ccEntry, cx, jsonl } from "../helpers-importers/agent-fixtures.js";

test("pdpp import claude-code / codex read their default folders; a re-run skips unchanged files", async () => {
  const tmp = tempDir();
  try {
    const home = join(tmp.dir, "home");
    const claudeDir = join(tmp.dir, "dot-claude");
    const codexHome = join(tmp.dir, "dot-codex");
    const project = join(claudeDir, "projects", "-work-app");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, "s1.jsonl"),
      jsonl([
        ccEntry("s1", "u1", "2025-01-01T00:00:00.000Z", {
          type: "user",
          message: { role: "user", content: "hello" },
        }),
        "{broken",
      ]).replace('"{broken"', "{broken"),
    );
    const day = join(codexHome, "sessions", "2025", "01", "02");
    mkdirSync(day, { recursive: true });
    writeFileSync(
      join(day, "rollout-2025-01-02T00-00-00-x.jsonl"),
      jsonl([
        cx("2025-01-02T00:00:00.000Z", "session_meta", { id: "x", cwd: "/w" }),
        cx("2025-01-02T00:00:01.000Z", "response_item", {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "hi codex" }],
        }),
      ]),
    );
    const env = { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome };
    assert.equal((await runPdpp(["init"], { home })).code, 0);

    const first = await runPdpp(["import", "claude-code"], { home, env });
    assert.equal(first.code, 0, first.stderr);
    const lines = first.stdout.trimEnd().split("\n");
    assert.match(
      lines[0]!,
      /^imported projects into Claude Code \(cin_[0-9a-f]{12}, connector claude-code\)$/,
    );
    assert.equal(lines[2], "  added 2  updated 0  unchanged 0  rejected 1");
    assert.equal(
      lines[3],
      "  files: 1 read, 0 unchanged since the last import and skipped (their records count as unchanged)",
    );
    assert.ok(
      lines.includes(`    -work-app/s1.jsonl:2: invalid JSON: ${lines.at(-1)!.split(": invalid JSON: ")[1]}`),
    );

    const again = await runPdpp(["import", "claude-code"], { home, env });
    assert.equal(again.code, 0, again.stderr);
    const againLines = again.stdout.split("\n");
    // The skipped file's rejection still stands: reported again from the import state.
    assert.equal(againLines[2], "  added 0  updated 0  unchanged 2  rejected 1");
    assert.ok(
      againLines.includes(lines.find((l) => l.startsWith("    -work-app/s1.jsonl:2: invalid JSON: "))!),
    );
    assert.equal(
      againLines[3],
      "  files: 0 read, 1 unchanged since the last import and skipped (their records count as unchanged)",
    );
    const stateDir = join(home, "import-state");
    assert.equal(statSync(stateDir).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(stateDir).length, 1);

    const codex = await runPdpp(["import", "codex"], { home, env });
    assert.equal(codex.code, 0, codex.stderr);
    assert.match(codex.stdout, /^imported sessions into Codex \(cin_[0-9a-f]{12}, connector codex\)\n/);
    assert.match(codex.stdout, /\n {2}added 2 {2}updated 0 {2}unchanged 0 {2}rejected 0\n/);

    const help = await runPdpp(["import", "codex", "--help"], { home, env });
    assert.match(help.stdout, /Usage: pdpp import codex \[options\] \[dir\]/);
    assert.match(help.stdout, /the folder of rollouts \(default:\s+\S+dot-codex\/sessions\)/);
  } finally {
    tmp.cleanup();
  }
});
