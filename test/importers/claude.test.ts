// The claude.ai importer: content blocks, tool calls/results, thinking, attachments, missing fields,
// unicode, malformed items reported and skipped, the export zip, scoped ids and re-imports.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CLAUDE_MANIFEST } from "../../src/importers/claude-manifest.js";
import { importFile } from "../../src/importers/import-file.js";
import { storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

const full = {
  uuid: "conv-1",
  name: "Déjà vu — 東京 trip 🗼",
  summary: "Planning a Tokyo trip.",
  created_at: "2024-05-01T10:00:00.123456+00:00",
  updated_at: "2024-05-01T10:05:00.000000+00:00",
  account: { uuid: "acc-1" },
  chat_messages: [
    {
      uuid: "m1",
      text: "Read my notes",
      content: [{ type: "text", text: "Read my notes", citations: [] }],
      sender: "human",
      created_at: "2024-05-01T10:00:01.000000+00:00",
      attachments: [
        {
          file_name: "notes.txt",
          file_size: 42,
          file_type: "txt",
          extracted_content: "Shinjuku hotel, 3 nights",
        },
      ],
      files: [{ file_name: "map.png" }],
    },
    {
      uuid: "m2",
      text: "ignored when blocks exist",
      content: [
        { type: "thinking", thinking: "They want a plan." },
        { type: "tool_use", name: "web_search", input: { query: "東京 weather" } },
        {
          type: "tool_result",
          name: "web_search",
          content: [{ type: "text", text: "Sunny, 24°C" }],
          is_error: false,
        },
        { type: "text", text: "Day 1: Asakusa." },
        { type: "text", text: "Day 2: Shinjuku 🏙️." },
      ],
      sender: "assistant",
      created_at: "2024-05-01T10:00:09Z",
      attachments: [],
      files: [],
    },
    { uuid: "m3", text: "old export: text only", sender: "human", created_at: "2024-05-01T10:01:00Z" },
    { text: "no uuid" },
  ],
};
const sparse = {
  uuid: "conv-2",
  chat_messages: [{ uuid: "m1", sender: "assistant", text: "same uuid m1, other chat" }],
};

function exportJson(conversations: unknown[]): string {
  return JSON.stringify(conversations, null, 1);
}

test("claude.ai export: blocks, tools, attachments, unicode, missing fields; bad items positioned and skipped", async () => {
  const app = await openOwnerApp();
  try {
    const path = join(app.dir, "conversations.json");
    const text = exportJson([full, "not an object", { name: "no uuid" }, sparse]);
    writeFileSync(path, text);
    const byte = (needle: string) => Buffer.from(text).indexOf(needle);
    const result = await importFile(app.api, { kind: "claude", path });
    assert.equal(result.connectionLabel, "Claude");
    assert.deepEqual([result.read, result.added, result.rejected], [6, 6, 3]);
    assert.deepEqual(
      result.rejections.map((r) => [r.position, r.reason]),
      [
        [`conversation 1 (byte ${byte("{")}) message 4`, "message has no uuid"],
        [`conversation 2 (byte ${byte('"not an object"')})`, "a conversation must be a JSON object"],
        [`conversation 3 (byte ${byte('{\n  "name": "no uuid"')})`, "conversation has no uuid"],
      ],
    );

    const conversations = await storedRecords(app.store, CLAUDE_MANIFEST, "conversations");
    assert.deepEqual(conversations.get("conv-1"), {
      conversation_id: "conv-1",
      title: "Déjà vu — 東京 trip 🗼",
      summary: "Planning a Tokyo trip.",
      created_at: "2024-05-01T10:00:00.123Z",
      updated_at: "2024-05-01T10:05:00.000Z",
      message_count: 3,
      attachment_count: 1,
      project_id: null,
    });
    assert.deepEqual(conversations.get("conv-2"), {
      conversation_id: "conv-2",
      title: "",
      summary: null,
      created_at: null,
      updated_at: null,
      message_count: 1,
      attachment_count: 0,
      project_id: null,
    });
    const messages = await storedRecords(app.store, CLAUDE_MANIFEST, "messages");
    // Message ids are scoped to their conversation: m1 exists in both.
    assert.deepEqual([...messages.keys()], ["conv-1~m1", "conv-1~m2", "conv-1~m3", "conv-2~m1"]);
    assert.deepEqual(messages.get("conv-1~m1"), {
      conversation_id: "conv-1",
      message_id: "m1",
      conversation_title: "Déjà vu — 東京 trip 🗼",
      index: 0,
      // An older export without parent links: one linear branch, all of it shown.
      parent_message_uuid: null,
      on_current_branch: true,
      sender: "human",
      text: "Read my notes",
      thinking: null,
      tool_text: null,
      tool_names: [],
      attachments: [{ file_name: "notes.txt", file_type: "txt", file_size: 42 }],
      attachment_text: "notes.txt:\nShinjuku hotel, 3 nights",
      files: [{ file_name: "map.png" }],
      sent_at: "2024-05-01T10:00:01.000Z",
    });
    const m2 = messages.get("conv-1~m2")!;
    assert.equal(m2.text, "Day 1: Asakusa.\n\nDay 2: Shinjuku 🏙️.");
    assert.equal(m2.thinking, "They want a plan.");
    assert.equal(
      m2.tool_text,
      'tool call web_search: {"query":"東京 weather"}\n\ntool result web_search: Sunny, 24°C',
    );
    assert.deepEqual(m2.tool_names, ["web_search"]);
    assert.equal(messages.get("conv-1~m3")!.text, "old export: text only");
    assert.equal(messages.get("conv-2~m1")!.sent_at, null);
  } finally {
    await app.close();
  }
});

test("claude.ai export zip; re-import unchanged; a newer export updates in place", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-claude-"));
  try {
    const zip = join(dir, "data-2024-05-02.zip");
    writeFileSync(
      zip,
      buildStoredZip({
        "users.json": "[]",
        "projects.json": "[]",
        "conversations.json": exportJson([full, sparse]),
      }),
    );
    const first = await importFile(app.api, { kind: "claude", path: zip });
    assert.deepEqual([first.added, first.rejected], [6, 1]);
    const again = await importFile(app.api, { kind: "claude", path: zip });
    assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 6]);
    assert.equal(again.connectionId, first.connectionId);

    // A later export (another file name) of the same account: one edited title, one new message.
    const later = structuredClone(full);
    later.name = "Tokyo trip";
    later.chat_messages.push({
      uuid: "m5",
      text: "Thanks!",
      sender: "human",
      created_at: "2024-05-02T09:00:00Z",
    });
    const path = join(dir, "conversations.json");
    writeFileSync(path, exportJson([later, sparse]));
    const newer = await importFile(app.api, { kind: "claude", path });
    assert.equal(newer.connectionId, first.connectionId);
    // conversation + its 3 old messages carry the new title; m5 is new; conv-2 untouched.
    assert.deepEqual([newer.added, newer.updated, newer.unchanged], [1, 4, 2]);
    const messages = await storedRecords(app.store, CLAUDE_MANIFEST, "messages");
    assert.equal(messages.size, 5);
    assert.equal(messages.get("conv-1~m1")!.conversation_title, "Tokyo trip");

    const bad = join(dir, "other.zip");
    writeFileSync(bad, buildStoredZip({ "readme.txt": "hi" }));
    await assert.rejects(
      importFile(app.api, { kind: "claude", path: bad }),
      /the zip has no conversations\.json: pass the claude\.ai export zip/,
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
