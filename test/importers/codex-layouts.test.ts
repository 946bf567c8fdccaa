// Codex rollouts as real ones lay them out: tool outputs given as content items (text kept, images
// marked, no base64 stored), plain-text shell results (`Exit code: 1`, the unified exec's `Process
// exited with code 2`) with is_error set, pasted images, a forked rollout's second meta line, and the
// 2025 bare layout as one file (auto-detected; times from the session start, cwd from the injected
// <environment_context>); read back from the store.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CODEX_MANIFEST } from "../../src/importers/codex.js";
import { detectFormat } from "../../src/importers/detect.js";
import { importFile } from "../../src/importers/import-file.js";
import { cx, jsonl, storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

const ID = "019a4f10-2b3c-7d4e-8f50-6a7b8c9d0e1f";
const PARENT = "0199ffff-0000-7000-8000-000000000000";
const BARE = "4f1e2d3c-aaaa-4bbb-8ccc-0d0e0f101112";
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
const t = (s: number) => `2025-11-20T08:00:${String(s).padStart(2, "0")}.000Z`;

const call = (s: number, id: string, name = "shell") =>
  cx(t(s), "response_item", { type: "function_call", name, arguments: '{"command":["make"]}', call_id: id });
const output = (s: number, id: string, out: unknown) =>
  cx(t(s), "response_item", { type: "function_call_output", call_id: id, output: out });

function envelope(): string {
  return jsonl([
    cx(t(0), "session_meta", { id: ID, timestamp: t(0), cwd: "/srv/app", cli_version: "0.63.0", git: {} }),
    // A forked rollout carries its parent's meta after its own.
    cx(t(0), "session_meta", { id: PARENT, timestamp: "2025-11-19T08:00:00.000Z", cwd: "/srv/other" }),
    cx(t(1), "response_item", {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "What is wrong on this page?" },
        { type: "input_image", image_url: PNG },
      ],
    }),
    call(2, "c_img", "view_image"),
    output(3, "c_img", [
      { type: "input_text", text: "Screenshot of /checkout" },
      { type: "input_image", image_url: PNG },
    ]),
    call(4, "c_fail"),
    output(
      5,
      "c_fail",
      "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nmake: *** No rule to make target 'test'.  Stop.\n",
    ),
    call(6, "c_ok"),
    output(
      7,
      "c_ok",
      "Exit code: 0\nWall time: 1.2 seconds\nOutput:\nExit code: 1 is printed by the test, not the shell\n",
    ),
    call(8, "c_exec", "exec_command"),
    output(
      9,
      "c_exec",
      "Chunk ID: 9f3a21\nWall time: 2.0013 seconds\nProcess exited with code 2\nOriginal token count: 8\nOutput:\nboom\n",
    ),
    call(10, "c_run", "exec_command"),
    output(
      11,
      "c_run",
      "Chunk ID: 9f3a22\nWall time: 10.0 seconds\nProcess running with session ID 4\nOutput:\nserving on :8080\n",
    ),
    call(12, "c_json"),
    output(13, "c_json", '{"output":"ok\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'),
  ]);
}

/** The bare layout of spring 2025: no envelope, no times after the first line, cwd only in context. */
function bare(): string {
  return jsonl([
    {
      id: BARE,
      timestamp: "2025-05-07T17:24:21.123Z",
      instructions: null,
      git: { commit_hash: "9a8b7c", branch: "main" },
    },
    { record_type: "state" },
    {
      type: "message",
      id: null,
      role: "user",
      content: [
        {
          type: "input_text",
          text: "<environment_context>\n  <cwd>/Users/mei/code/ray-tracer</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>",
        },
      ],
    },
    {
      type: "message",
      id: null,
      role: "user",
      content: [{ type: "input_text", text: "Why are the shadows black? 🌑" }],
    },
    {
      type: "function_call",
      id: "fc_1",
      name: "shell",
      arguments: '{"command":["cat","shade.rs"]}',
      call_id: "call_9",
    },
    {
      type: "function_call_output",
      call_id: "call_9",
      output: '{"output":"fn shade() {}","metadata":{"exit_code":0}}',
    },
    { record_type: "state" },
    {
      type: "message",
      id: null,
      role: "assistant",
      content: [{ type: "output_text", text: "The ambient term is 0." }],
    },
  ]);
}

test("Codex: content-item outputs, plain-text exit codes, images, forks; no base64 stored", async () => {
  const app = await openOwnerApp();
  try {
    const day = join(app.dir, "sessions", "2025", "11", "20");
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, `rollout-2025-11-20T08-00-00-${ID}.jsonl`), envelope());
    const result = await importFile(app.api, { kind: "codex", path: join(app.dir, "sessions") });
    assert.deepEqual(result.rejections, []);
    const messages = await storedRecords(app.store, CODEX_MANIFEST, "messages");
    assert.ok([...messages.values()].every((m) => m.session_id === ID));
    const byCall = (id: string) => {
      const m = [...messages.values()].find((r) => r.tool_use_id === id && r.kind === "tool_result")!;
      return [m.role, m.tool_name, m.is_error, m.text];
    };
    assert.deepEqual(byCall("c_img"), [
      "tool",
      "view_image",
      null,
      "Screenshot of /checkout\n[image: image/png]",
    ]);
    assert.deepEqual(byCall("c_fail").slice(0, 3), ["tool", "shell", true]);
    assert.deepEqual(byCall("c_ok").slice(0, 3), ["tool", "shell", false]);
    assert.deepEqual(byCall("c_exec").slice(0, 3), ["tool", "exec_command", true]);
    assert.deepEqual(byCall("c_run").slice(0, 3), ["tool", "exec_command", null]);
    assert.deepEqual(byCall("c_json"), ["tool", "shell", false, "ok\n"]);
    const prompt = messages.get(`${ID}~L3`)!;
    assert.deepEqual(
      [prompt.kind, prompt.text],
      ["text", "What is wrong on this page?\n\n[image: image/png]"],
    );
    assert.ok(!JSON.stringify([...messages.values()]).includes("iVBORw0KGgo"));
    const sessions = await storedRecords(app.store, CODEX_MANIFEST, "sessions");
    assert.deepEqual([...sessions.keys()], [ID]);
    assert.deepEqual(
      [sessions.get(ID)!.title, sessions.get(ID)!.cwd],
      ["What is wrong on this page?", "/srv/app"],
    );
  } finally {
    await app.close();
  }
});

test("Codex: one rollout of the 2025 bare layout is detected and gets times and cwd", async () => {
  const app = await openOwnerApp();
  try {
    const file = join(app.dir, `rollout-2025-05-07T17-24-21-${BARE}.jsonl`);
    writeFileSync(file, bare());
    assert.equal((await detectFormat(file)).format.name, "codex");
    const result = await importFile(app.api, { kind: "codex", path: file });
    assert.deepEqual([result.rejected, result.perStream.messages!.added], [0, 5]);
    const messages = await storedRecords(app.store, CODEX_MANIFEST, "messages");
    const rows = [...messages.values()].map((m) => [m.message_id, m.kind, m.sent_at, m.cwd]);
    const start = "2025-05-07T17:24:21.123Z";
    const cwd = "/Users/mei/code/ray-tracer";
    assert.deepEqual(rows, [
      ["L3", "context", start, cwd],
      ["L4", "text", start, cwd],
      ["L5", "tool_call", start, cwd],
      ["L6", "tool_result", start, cwd],
      ["L8", "text", start, cwd],
    ]);
    const session = (await storedRecords(app.store, CODEX_MANIFEST, "sessions")).get(BARE)!;
    assert.deepEqual(
      [session.title, session.cwd, session.git_branch, session.started_at, session.message_count],
      ["Why are the shadows black? 🌑", cwd, "main", start, 2],
    );
    // A time range finds the bare session's messages (they were stored without a time before).
    const page = await app.get(
      "/v1/streams/messages/records?filter[sent_at][gte]=2025-05-07T00:00:00Z&filter[sent_at][lt]=2025-05-08T00:00:00Z",
    );
    assert.equal((page.data as unknown[] | undefined)?.length, 5, JSON.stringify(page).slice(0, 300));
  } finally {
    await app.close();
  }
});
