// Issue 19 item 1: an emoji at a title's cut never costs a session, and one field the stores cannot
// hold (an unpaired surrogate a tool cut mid-emoji, a NUL) never costs its record: the importer repairs
// it to U+FFFD and says so. Real layouts (Codex rollout, Claude Code log, claude.ai export), an emoji
// at every position around the 200-code-point cut, read back on every store.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CLAUDE_CODE_MANIFEST } from "../../src/importers/claude-code.js";
import { CLAUDE_MANIFEST } from "../../src/importers/claude-manifest.js";
import { CODEX_MANIFEST } from "../../src/importers/codex.js";
import { importFile } from "../../src/importers/import-file.js";
import { TITLE_CHARS } from "../../src/importers/session-summary.js";
import { testBackends } from "../helpers/backends.js";
import { ccEntry, cx, jsonl, storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

/** No unpaired surrogate (String.prototype.isWellFormed; not in this TypeScript lib yet). */
const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** A prompt whose 🛒 starts at code point `at` (so the cut at 199 falls before, inside or after it). */
const prompt = (at: number) => `${"a".repeat(at)}🛒 ${"b".repeat(260)}`;
const OFFSETS = [TITLE_CHARS - 3, TITLE_CHARS - 2, TITLE_CHARS - 1, TITLE_CHARS, TITLE_CHARS + 1];
const uuid = (i: number) => `7e57c0de-0000-4000-8000-${String(i).padStart(12, "0")}`;

for (const backend of testBackends()) {
  test(`${backend.name}: emoji at every title cut, unpaired surrogates and NUL repaired, nothing lost`, async () => {
    const app = await openOwnerApp({ backend });
    try {
      const day = join(app.dir, "codex", "2025", "12", "01");
      mkdirSync(day, { recursive: true });
      for (const [i, at] of OFFSETS.entries()) {
        const t = `2025-12-01T10:0${i}:00.000Z`;
        const lines = [
          cx(t, "session_meta", { id: uuid(i), timestamp: t, cwd: "/w", cli_version: "0.64.0" }),
          cx(t, "response_item", {
            type: "message",
            role: "user",
            content: [{ type: "input_text", text: prompt(at) }],
          }),
          cx(t, "response_item", { type: "function_call", name: "shell", arguments: "{}", call_id: "c1" }),
        ];
        // Codex cut this output mid-emoji: JSON holds the lone high surrogate as an escape.
        const text = `${jsonl(lines)}${JSON.stringify(cx(t, "response_item", { type: "function_call_output", call_id: "c1", output: "PLACEHOLDER" })).replace("PLACEHOLDER", "Exit code: 0\\nWall time: 0 seconds\\nOutput:\\nlong log … \\ud83d")}\n`;
        writeFileSync(join(day, `rollout-2025-12-01T10-0${i}-00-${uuid(i)}.jsonl`), text);
      }
      const codex = await importFile(app.api, { kind: "codex", path: join(app.dir, "codex") });
      assert.deepEqual([codex.rejected, codex.repaired], [0, OFFSETS.length]);
      assert.match(codex.repairs[0]!.position, /rollout-.*\.jsonl:4$/);
      assert.match(codex.repairs[0]!.reason, /U\+FFFD in text/);
      const sessions = await storedRecords(app.store, CODEX_MANIFEST, "sessions");
      assert.equal(sessions.size, OFFSETS.length);
      for (const [i, at] of OFFSETS.entries()) {
        const title = sessions.get(uuid(i))!.title as string;
        assert.ok(wellFormed(title));
        assert.ok([...title].length <= TITLE_CHARS);
        assert.equal(title.includes("🛒"), at <= TITLE_CHARS - 2, `${at}: ${title.slice(-5)}`);
      }
      const messages = await storedRecords(app.store, CODEX_MANIFEST, "messages");
      assert.equal(messages.size, OFFSETS.length * 3);
      assert.ok([...messages.values()].some((m) => (m.text as string).endsWith("long log … \ufffd")));

      // Claude Code: a long /rename with the emoji at the cut, and a NUL in a tool result.
      const project = join(app.dir, "projects", "-w");
      mkdirSync(project, { recursive: true });
      const s = uuid(99);
      writeFileSync(
        join(project, `${s}.jsonl`),
        jsonl([
          ccEntry(s, "u1", "2025-12-02T10:00:00.000Z", {
            type: "user",
            message: { role: "user", content: "go" },
          }),
          ccEntry(s, "u2", "2025-12-02T10:00:01.000Z", {
            type: "user",
            message: {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: "t", content: "bin\u0000ary" }],
            },
          }),
          { type: "custom-title", customTitle: prompt(TITLE_CHARS - 1), sessionId: s },
        ]),
      );
      const cc = await importFile(app.api, { kind: "claude-code", path: join(app.dir, "projects") });
      assert.deepEqual([cc.rejected, cc.repaired, cc.perStream.sessions!.added], [0, 1, 1]);
      const ccSession = (await storedRecords(app.store, CLAUDE_CODE_MANIFEST, "sessions")).get(s)!;
      assert.equal(ccSession.title, `${"a".repeat(TITLE_CHARS - 1)}…`);
      const ccMessages = await storedRecords(app.store, CLAUDE_CODE_MANIFEST, "messages");
      assert.equal(ccMessages.get(`${s}~u2-0`)!.text, "bin\ufffdary");

      // claude.ai: an untitled conversation titled from a first message with the emoji at the cut.
      const exportFile = join(app.dir, "conversations.json");
      writeFileSync(
        exportFile,
        JSON.stringify(
          OFFSETS.map((at, i) => ({
            uuid: `conv-${i}`,
            name: "",
            chat_messages: [
              { uuid: "m", sender: "human", text: prompt(at), created_at: "2025-12-03T10:00:00Z" },
            ],
          })),
        ),
      );
      const claude = await importFile(app.api, { kind: "claude", path: exportFile });
      assert.deepEqual([claude.rejected, claude.added], [0, OFFSETS.length * 2]);
      const conversations = await storedRecords(app.store, CLAUDE_MANIFEST, "conversations");
      for (const c of conversations.values()) assert.ok(wellFormed(c.title as string));
    } finally {
      await app.close();
    }
  });
}
