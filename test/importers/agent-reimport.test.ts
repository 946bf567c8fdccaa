// Re-importing agent logs over an import made by the previous importer version (manifest 1: messages
// carrying session_title, tool results in role user, Claude Code file state of format claude-code/1):
// the same records are updated in place, none duplicated, the old title copies gone from search.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { CLAUDE_CODE_MANIFEST, openClaudeCodeSource } from "../../src/importers/claude-code.js";
import { importFile } from "../../src/importers/import-file.js";
import { openOwnerSink } from "../../src/importers/owner-sink.js";
import { ccEntry, jsonl, storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";

const S = "0ld5e551-0000-4000-8000-000000000001";

/** The version-1 manifest: messages titled and searched by a copy of their session's title. */
function versionOne(): Manifest {
  const manifest = structuredClone(CLAUDE_CODE_MANIFEST) as Manifest;
  manifest.version = "1";
  const messages = manifest.streams.find((s) => s.name === "messages")!;
  messages.schema.properties.session_title = { type: "string" };
  messages.title_field = "session_title";
  messages.query!.search = ["text", "session_title", "tool_name"];
  return manifest;
}

test("claude-code: a re-import over a version-1 import updates in place, duplicates nothing", async () => {
  const app = await openOwnerApp();
  try {
    const project = join(app.dir, "projects", "-home-li-zebra");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, `${S}.jsonl`),
      jsonl([
        ccEntry(S, "u1", "2025-01-01T10:00:00.000Z", {
          type: "user",
          message: { role: "user", content: "Rename the module" },
        }),
        ccEntry(S, "a1", "2025-01-01T10:00:01.000Z", {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        }),
        ccEntry(S, "u2", "2025-01-01T10:00:02.000Z", {
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
        }),
        { type: "custom-title", customTitle: "Zebra cleanup", sessionId: S },
      ]),
    );
    // What version 1 stored: the same ids, each message with the title copy, tool results as "user".
    const sink = await openOwnerSink(app.api, { manifest: versionOne(), connectionLabel: "Claude Code" });
    const old: Record<string, Record<string, unknown>[]> = { messages: [], sessions: [] };
    for await (const item of (await openClaudeCodeSource(join(app.dir, "projects"))).items) {
      if (!("data" in item)) continue;
      const data = { ...item.data };
      if (item.stream === "messages") {
        data.session_title = "Zebra cleanup";
        if (data.kind === "tool_result") data.role = "user";
      } else delete data.title_source;
      old[item.stream]!.push(data);
    }
    for (const [stream, records] of Object.entries(old)) await sink.write(stream, records);
    const before = (await app.get("/v1/search?q=zebra&limit=20")).data as unknown[];
    assert.equal(before.length, 4); // the session and, through their title copies, its 3 messages
    const stateDir = join(app.dir, "state");
    mkdirSync(stateDir);

    const result = await importFile(app.api, {
      kind: "claude-code",
      path: join(app.dir, "projects"),
      stateDir,
    });
    assert.deepEqual(result.perStream.messages, { added: 0, updated: 3, unchanged: 0, rejected: 0 });
    assert.deepEqual(result.perStream.sessions, { added: 0, updated: 1, unchanged: 0, rejected: 0 });
    const messages = await storedRecords(app.store, CLAUDE_CODE_MANIFEST, "messages");
    assert.equal(messages.size, 3);
    assert.ok([...messages.values()].every((m) => !("session_title" in m)));
    assert.equal(messages.get(`${S}~u2-0`)!.role, "tool");
    // The title word now finds the session only (the messages' index rows were rebuilt without it).
    const hits = (await app.get("/v1/search?q=zebra&limit=20")).data as { stream: string }[];
    assert.deepEqual(
      hits.map((h) => h.stream),
      ["sessions"],
    );
    // The state written is of the new format; a second run reads nothing and changes nothing.
    const state = readFileSync(join(stateDir, readdirSync(stateDir)[0]!), "utf8");
    assert.match(state, /"format":"claude-code\/2"/);
    const again = await importFile(app.api, {
      kind: "claude-code",
      path: join(app.dir, "projects"),
      stateDir,
    });
    assert.deepEqual([again.added, again.updated, again.files?.filesRead], [0, 0, 0]);
  } finally {
    await app.close();
  }
});
