// The Codex importer: the envelope and the older bare rollout layouts, tool calls paired with their
// outputs by call_id, reasoning summaries, injected context, malformed lines, $CODEX_HOME and skipping.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CODEX_MANIFEST, defaultCodexDir } from "../../src/importers/codex.js";
import { importFile } from "../../src/importers/import-file.js";
import { cx, jsonl, storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

const ID = "0199a213-81c0-7800-8aa1-bbab2a035a53";
const OLD = "5973b6c0-94b8-487b-a530-2aeb6098ae0e";

function envelopeRollout(): string {
  const t = (s: number) => `2025-10-01T12:00:${String(s).padStart(2, "0")}.000Z`;
  return jsonl([
    cx(t(0), "session_meta", {
      id: ID,
      timestamp: t(0),
      cwd: "/home/li/app",
      originator: "codex_cli_rs",
      cli_version: "0.46.0",
      git: { commit_hash: "abc123", branch: "fix/ünïcode", repository_url: "git@x:y.git" },
    }),
    cx(t(1), "response_item", {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions>" }],
    }),
    cx(t(1), "response_item", {
      type: "message",
      role: "user",
      content: [
        {
          type: "input_text",
          text: "<environment_context>\n<cwd>/home/li/app</cwd>\n</environment_context>",
        },
      ],
    }),
    cx(t(2), "turn_context", { cwd: "/home/li/app", model: "gpt-5-codex" }),
    cx(t(3), "response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Rename 変数 foo to bar" }],
    }),
    cx(t(3), "event_msg", { type: "user_message", message: "Rename 変数 foo to bar" }),
    cx(t(4), "response_item", {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "**Searching** usages" }],
      encrypted_content: "x",
    }),
    cx(t(4), "response_item", { type: "reasoning", summary: [], encrypted_content: "only encrypted" }),
    cx(t(5), "response_item", {
      type: "function_call",
      name: "shell",
      arguments: '{"command":["rg","foo"]}',
      call_id: "call_1",
    }),
    cx(t(6), "response_item", {
      type: "function_call_output",
      call_id: "call_1",
      output: '{"output":"src/a.ts:1:foo","metadata":{"exit_code":0}}',
    }),
    cx(t(7), "response_item", {
      type: "custom_tool_call",
      name: "apply_patch",
      input: "*** Begin Patch",
      call_id: "call_2",
    }),
    cx(t(8), "response_item", {
      type: "custom_tool_call_output",
      call_id: "call_2",
      output: '{"output":"patch rejected","metadata":{"exit_code":1}}',
    }),
    "not json at all",
    cx(t(9), "response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Done ✅" }],
    }),
    cx(t(9), "event_msg", { type: "token_count", info: null }),
  ]).replace('"not json at all"', "not json at all");
}

function bareRollout(): string {
  return jsonl([
    { id: OLD, timestamp: "2025-05-07T17:24:21.123Z", instructions: null },
    { record_type: "state" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "What does main.rs do?" }] },
    { type: "function_call", name: "shell", arguments: '{"command":["cat","main.rs"]}', call_id: "c1" },
    { type: "function_call_output", call_id: "c1", output: "fn main() {}" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "It does nothing." }] },
  ]);
}

test("Codex rollouts: both layouts, tool calls and outputs, reasoning, context; bad lines positioned", async () => {
  const app = await openOwnerApp();
  try {
    const home = join(app.dir, "codex-home");
    const day = join(home, "sessions", "2025", "10", "01");
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, `rollout-2025-10-01T12-00-00-${ID}.jsonl`), envelopeRollout());
    writeFileSync(join(home, "sessions", `rollout-2025-05-07T17-24-21-${OLD}.jsonl`), bareRollout());
    writeFileSync(join(day, "history.jsonl"), '{"not":"a rollout"}\n');
    const dir = defaultCodexDir({ CODEX_HOME: home });
    assert.equal(dir, join(home, "sessions"));

    const result = await importFile(app.api, { kind: "codex", path: dir });
    assert.equal(result.connectionLabel, "Codex");
    assert.deepEqual(
      result.rejections.map((r) => r.position),
      [`2025/10/01/rollout-2025-10-01T12-00-00-${ID}.jsonl:13`],
    );
    const messages = await storedRecords(app.store, CODEX_MANIFEST, "messages");
    const rows = [...messages.values()]
      .filter((m) => m.session_id === ID)
      .map((m) => [m.message_id, m.kind, m.role, m.tool_name, m.tool_use_id, m.is_error, m.model, m.text]);
    assert.deepEqual(rows, [
      ["L10", "tool_result", "tool", "shell", "call_1", false, "gpt-5-codex", "src/a.ts:1:foo"],
      ["L11", "tool_call", "assistant", "apply_patch", "call_2", null, "gpt-5-codex", "*** Begin Patch"],
      ["L12", "tool_result", "tool", "apply_patch", "call_2", true, "gpt-5-codex", "patch rejected"],
      ["L14", "text", "assistant", null, null, null, "gpt-5-codex", "Done ✅"],
      [
        "L3",
        "context",
        "user",
        null,
        null,
        null,
        null,
        "<environment_context>\n<cwd>/home/li/app</cwd>\n</environment_context>",
      ],
      ["L5", "text", "user", null, null, null, null, "Rename 変数 foo to bar"],
      ["L7", "reasoning", "assistant", null, null, null, "gpt-5-codex", "**Searching** usages"],
      ["L9", "tool_call", "assistant", "shell", "call_1", null, "gpt-5-codex", '{"command":["rg","foo"]}'],
    ]);
    const sessions = await storedRecords(app.store, CODEX_MANIFEST, "sessions");
    assert.deepEqual(sessions.get(ID), {
      session_id: ID,
      title: "Rename 変数 foo to bar",
      title_source: "prompt",
      started_at: "2025-10-01T12:00:00.000Z",
      ended_at: "2025-10-01T12:00:09.000Z",
      message_count: 2,
      tool_call_count: 2,
      project: null,
      cwd: "/home/li/app",
      git_branch: "fix/ünïcode",
      git_commit: "abc123",
      version: "0.46.0",
      model: "gpt-5-codex",
    });
    const old = sessions.get(OLD)!;
    assert.deepEqual(
      [old.title, old.started_at, old.message_count, old.tool_call_count],
      ["What does main.rs do?", "2025-05-07T17:24:21.123Z", 2, 1],
    );
    const oldRows = [...messages.values()]
      .filter((m) => m.session_id === OLD)
      .map((m) => [m.kind, m.tool_name, m.text]);
    assert.deepEqual(oldRows, [
      ["text", null, "What does main.rs do?"],
      ["tool_call", "shell", '{"command":["cat","main.rs"]}'],
      ["tool_result", "shell", "fn main() {}"],
      ["text", null, "It does nothing."],
    ]);

    const stateDir = join(app.dir, "state");
    await importFile(app.api, { kind: "codex", path: dir, stateDir });
    const again = await importFile(app.api, { kind: "codex", path: dir, stateDir });
    assert.deepEqual([again.added, again.updated, again.unchanged, again.files?.files], [0, 0, 14, 2]);
  } finally {
    await app.close();
  }
});
