// Auto-detection of the agent-history formats: a claude.ai export (file and zip), a Claude Code projects
// folder or one of its logs, a Codex sessions folder or one rollout; none of them mistaken for another.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { detectFormat } from "../../src/importers/detect.js";
import { ccEntry, cx, jsonl } from "../helpers-importers/agent-fixtures.js";
import { branchedConversation } from "../helpers-importers/chatgpt-fixture.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

const detected = async (path: string) => (await detectFormat(path)).format.name;

test("detects claude, claude-code and codex inputs and keeps ChatGPT apart", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-agent-detect-"));
  try {
    const claude = JSON.stringify(
      [{ uuid: "c", name: "n", chat_messages: [{ uuid: "m", sender: "human", text: "hi" }] }],
      null,
      2,
    );
    writeFileSync(join(dir, "conversations.json"), claude);
    writeFileSync(
      join(dir, "data-2025.zip"),
      buildStoredZip({ "users.json": "[]", "projects.json": "[]", "conversations.json": claude }),
    );
    const projects = join(dir, "projects", "-home-ana-shop");
    mkdirSync(projects, { recursive: true });
    const log = join(projects, "s1.jsonl");
    writeFileSync(
      log,
      jsonl([
        { type: "summary", summary: "x", leafUuid: "u" },
        ccEntry("s1", "u1", "2025-01-01T00:00:00Z", {
          type: "user",
          message: { role: "user", content: "hi" },
        }),
      ]),
    );
    const day = join(dir, "sessions", "2025", "01", "02");
    mkdirSync(day, { recursive: true });
    const rollout = join(day, "rollout-2025-01-02T00-00-00-x.jsonl");
    writeFileSync(rollout, jsonl([cx("2025-01-02T00:00:00Z", "session_meta", { id: "x" })]));
    writeFileSync(join(dir, "chatgpt.json"), JSON.stringify([branchedConversation("c1", 1_700_000_000)]));
    // Issue 19's layouts: a sub-agent's log, a bare 2025 rollout, an export zip with projects/*.json.
    const subagents = join(projects, "s1", "subagents");
    mkdirSync(subagents, { recursive: true });
    const subagent = join(subagents, "agent-a1.jsonl");
    writeFileSync(
      subagent,
      jsonl([
        ccEntry("s1", "u9", "2025-01-01T00:00:01Z", {
          type: "user",
          isSidechain: true,
          agentId: "a1",
          message: { role: "user", content: "look" },
        }),
      ]),
    );
    const bare = join(dir, "rollout-2025-05-07T17-24-21-b.jsonl");
    writeFileSync(
      bare,
      jsonl([
        { id: "b", timestamp: "2025-05-07T17:24:21.123Z", instructions: null },
        { record_type: "state" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      ]),
    );
    writeFileSync(
      join(dir, "data-2026.zip"),
      buildStoredZip({
        "users.json": "[]",
        "projects/p1.json": JSON.stringify({ uuid: "p1", name: "P", docs: [] }),
        "conversations.json": claude,
      }),
    );

    assert.equal(await detected(join(dir, "conversations.json")), "claude");
    assert.equal(await detected(join(dir, "data-2025.zip")), "claude");
    assert.equal(await detected(join(dir, "projects")), "claude-code");
    assert.equal(await detected(log), "claude-code");
    assert.equal(await detected(join(dir, "sessions")), "codex");
    assert.equal(await detected(rollout), "codex");
    assert.equal(await detected(join(dir, "chatgpt.json")), "chatgpt");
    assert.equal(await detected(subagent), "claude-code");
    assert.equal(await detected(bare), "codex");
    assert.equal(await detected(join(dir, "data-2026.zip")), "claude");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
