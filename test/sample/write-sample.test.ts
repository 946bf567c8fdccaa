// The sample dataset: deterministic bytes for a seed, real formats that import cleanly, and the edge
// cases it promises (long and huge bodies, MIME shapes, Latin-1, attachment, abandoned chat branch).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openChatgptSource } from "../../src/importers/chatgpt.js";
import { openClaudeSource } from "../../src/importers/claude.js";
import { openClaudeCodeSource } from "../../src/importers/claude-code.js";
import { openMboxSource } from "../../src/importers/mbox.js";
import { importSampleData } from "../../src/sample/import-sample.js";
import { writeSampleData } from "../../src/sample/write-sample.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "pdpp-sample-"));
}

test("the same seed writes byte-identical files; another seed does not", async () => {
  const [a, b, c] = [tempDir(), tempDir(), tempDir()];
  try {
    const fa = await writeSampleData(a, { seed: 7, scale: 0.2 });
    await writeSampleData(b, { seed: 7, scale: 0.2 });
    await writeSampleData(c, { seed: 8, scale: 0.2 });
    const files = readdirSync(a, { recursive: true }) as string[];
    assert.ok(files.some((f) => f.endsWith(".jsonl")));
    for (const name of files) {
      if (statSync(join(a, name)).isDirectory()) continue;
      assert.ok(readFileSync(join(b, name)).equals(readFileSync(join(a, name))), name);
    }
    assert.ok(!readFileSync(join(c, "work-mail.mbox")).equals(readFileSync(join(a, "work-mail.mbox"))));
    assert.deepEqual(
      fa.imports.map((i) => [i.kind, i.connectionLabel]),
      [
        ["mbox", "Work mail"],
        ["mbox", "Personal mail"],
        ["chatgpt", "ChatGPT"],
        ["claude", "Claude"],
        ["claude-code", "Claude Code"],
        ["csv", "Bank"],
      ],
    );
  } finally {
    for (const d of [a, b, c]) rmSync(d, { recursive: true, force: true });
  }
});

test("the mail samples carry the promised edge cases", async () => {
  const dir = tempDir();
  try {
    const files = await writeSampleData(dir);
    const messages: Record<string, unknown>[] = [];
    for await (const item of openMboxSource(files.imports[0]!.path).items) {
      assert.ok("data" in item, "every sample message parses");
      messages.push(item.data);
    }
    assert.equal(messages.length, 120);
    const sizes = messages.map((m) => String(m.body).length);
    assert.ok(
      sizes.some((s) => s > 200_000),
      "one 200+ KB body",
    );
    assert.ok(sizes.filter((s) => s >= 5_000 && s <= 41_000).length >= 5, "several 5–40 KB bodies");
    assert.ok(
      messages.some((m) => String(m.body).includes("Hälsningar från Göteborg")),
      "Latin-1 QP decoded",
    );
    assert.ok(
      messages.every((m) => !String(m.body).includes("<p>")),
      "HTML became text",
    );
    assert.ok(
      messages.every((m) => String(m.body).includes("\nFrom my desk,")),
      ">From unquoted",
    );
    const withAttachment = messages.find((m) => (m.attachments as unknown[]).length > 0)!;
    assert.match(JSON.stringify(withAttachment.attachments), /"content_type":"application\/pdf"/);
    const threads = new Map<string, number>();
    for (const m of messages) threads.set(String(m.thread_id), (threads.get(String(m.thread_id)) ?? 0) + 1);
    assert.ok(
      [...threads.values()].some((n) => n >= 3),
      "threads with replies",
    );
    assert.ok(messages.some((m) => (m.labels as string[]).includes("Projects/Atlas")));

    const chat = await openChatgptSource(files.imports[2]!.path);
    const texts: string[] = [];
    for await (const item of chat.items)
      if ("data" in item && item.stream === "messages") texts.push(String(item.data.text));
    assert.ok(texts.length > 24);
    assert.ok(!texts.some((t) => t.includes("Porto")), "the abandoned branch is not imported");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the whole sample imports into SQLite with nothing rejected, and again with everything unchanged", async () => {
  const dir = tempDir();
  const app = await openOwnerApp();
  try {
    const files = await writeSampleData(dir, { scale: 0.25 });
    const first = await importSampleData(app.api, files);
    assert.deepEqual(
      first.map((r) => [r.connectorKey, r.connectionLabel, r.rejected, r.added === r.read]),
      [
        ["mbox", "Work mail", 0, true],
        ["mbox", "Personal mail", 0, true],
        ["chatgpt", "ChatGPT", 0, true],
        ["claude", "Claude", 0, true],
        ["claude-code", "Claude Code", 0, true],
        ["csv.bank", "Bank", 0, true],
      ],
    );
    assert.deepEqual(
      first.map((r) => r.read),
      [30, 20, first[2]!.read, first[3]!.read, first[4]!.read, 90],
    );
    assert.deepEqual(Object.keys(first[3]!.perStream), ["conversations", "messages"]);
    assert.deepEqual(Object.keys(first[4]!.perStream).sort(), ["messages", "sessions"]);
    assert.notEqual(first[0]!.connectionId, first[1]!.connectionId);
    const again = await importSampleData(app.api, files);
    assert.deepEqual(
      again.map((r) => [r.added, r.updated, r.unchanged]),
      first.map((r) => [0, 0, r.read]),
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the agent samples carry tool calls, tool results, thinking and an attachment", async () => {
  const dir = tempDir();
  try {
    const files = await writeSampleData(dir, { scale: 0.25 });
    const kinds = new Set<string>();
    for await (const item of (await openClaudeCodeSource(files.imports[4]!.path)).items) {
      assert.ok("data" in item, "every sample log line parses");
      if (item.stream === "messages") kinds.add(String(item.data.kind));
    }
    assert.deepEqual([...kinds].sort(), ["text", "tool_call", "tool_result"]);
    const claude: Record<string, unknown>[] = [];
    for await (const item of (await openClaudeSource(files.imports[3]!.path)).items) {
      assert.ok("data" in item);
      if (item.stream === "messages") claude.push(item.data);
    }
    assert.ok(claude.some((m) => m.thinking));
    assert.ok(claude.some((m) => String(m.tool_text).includes("tool call web_search")));
    assert.ok(claude.some((m) => String(m.attachment_text).includes("budget-review-notes.txt")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
