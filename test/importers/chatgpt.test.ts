// The ChatGPT importer: active-branch walk, skipped messages, conversations.json and the export zip.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openChatgptSource } from "../../src/importers/chatgpt.js";
import { importFile } from "../../src/importers/import-file.js";
import type { ImportItem } from "../../src/importers/types.js";
import { branchedConversation } from "../helpers-importers/chatgpt-fixture.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

const T0 = 1_700_000_000;

function exportJson(): string {
  return JSON.stringify([branchedConversation("c1", T0), branchedConversation("c2", T0 + 86_400)], null, 2);
}

async function itemsOf(path: string): Promise<{ items: ImportItem[]; bytes: number; total: number | null }> {
  const source = await openChatgptSource(path);
  const items: ImportItem[] = [];
  for await (const item of source.items) items.push(item);
  return { items, bytes: source.bytesRead(), total: source.totalBytes };
}

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-chatgpt-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const expectedC1 = [
  {
    stream: "conversations",
    data: {
      conversation_id: "c1",
      title: "Trip planning c1",
      created_at: "2023-11-14T22:13:20.000Z",
      updated_at: "2023-11-14T22:23:20.000Z",
      model: "gpt-4o",
      message_count: 4,
    },
  },
  ["c1-u1", "user", "Plan 3 days in Lisbon", null, "2023-11-14T22:13:21.000Z"],
  ["c1-a1", "assistant", "Day 1: Alfama.\nDay 2: Belém.", "gpt-4o", "2023-11-14T22:13:22.000Z"],
  ["c1-u2", "user", "And Sintra?", null, "2023-11-14T22:13:25.000Z"],
  ["c1-a2", "assistant", "Sintra is a day trip.", "gpt-4o-mini", "2023-11-14T22:13:27.000Z"],
];

function shape(items: ImportItem[]): unknown[] {
  return items.map((item) => {
    if ("error" in item) return { error: item.error, position: item.position };
    if (item.stream === "conversations") return { stream: item.stream, data: item.data };
    const d = item.data;
    assert.equal(d.conversation_title, `Trip planning ${d.conversation_id}`);
    return [d.message_id, d.role, d.text, d.model, d.sent_at];
  });
}

test(
  "conversations.json: follows the active branch, skips system/hidden/empty/abandoned messages",
  withDir(async (dir) => {
    const path = join(dir, "conversations.json");
    writeFileSync(path, exportJson());
    const { items, bytes, total } = await itemsOf(path);
    assert.equal(items.length, 10);
    assert.deepEqual(shape(items.slice(0, 5)), expectedC1);
    assert.equal(bytes, Buffer.byteLength(exportJson()));
    assert.equal(total, bytes);
    const c2 = items[5]!;
    assert.ok("data" in c2 && c2.data.conversation_id === "c2");
    const c2Offset = Buffer.from(exportJson()).indexOf('{\n    "title": "Trip planning c2"');
    assert.ok(c2Offset > 1000);
    const position = items[6] && "position" in items[6] ? items[6].position : "";
    assert.equal(position, `conversation 2 (byte ${c2Offset}) message 1`);
  }),
);

test(
  "the export zip: conversations.json is streamed out of the archive",
  withDir(async (dir) => {
    const path = join(dir, "export.zip");
    writeFileSync(
      path,
      buildStoredZip({
        "chat.html": "<html></html>",
        "export/conversations.json": exportJson(),
        "user.json": "{}",
      }),
    );
    const { items, bytes, total } = await itemsOf(path);
    assert.deepEqual(shape(items.slice(0, 5)), expectedC1);
    assert.equal(items.length, 10);
    assert.equal(bytes, Buffer.byteLength(exportJson()));
    assert.equal(total, bytes);
  }),
);

test(
  "a zip without conversations.json is a clear error",
  withDir(async (dir) => {
    const path = join(dir, "other.zip");
    writeFileSync(path, buildStoredZip({ "a.txt": "x" }));
    await assert.rejects(openChatgptSource(path), {
      code: "invalid_request",
      message: /has no conversations\.json/,
    });
  }),
);

test(
  "a damaged zip is a clear error naming the file",
  withDir(async (dir) => {
    const path = join(dir, "export.zip");
    // A local-file header and nothing else: zip-looking, but no central directory.
    writeFileSync(path, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]));
    await assert.rejects(openChatgptSource(path), (error: Error & { code?: string }) => {
      assert.equal(error.code, "invalid_request");
      assert.ok(error.message.startsWith(`${path} is not a readable zip (`), error.message);
      assert.ok(error.message.endsWith("); re-download the export."), error.message);
      return true;
    });
  }),
);

test(
  "a malformed conversation is reported with its position; the others still import",
  withDir(async (dir) => {
    const path = join(dir, "conversations.json");
    const good = JSON.stringify(branchedConversation("c3", T0));
    writeFileSync(path, `[${good}, {"title": "no id"}, 42, {"broken": tru}, ${good.replace(/c3/g, "c4")}]`);
    const { items } = await itemsOf(path);
    const errors = items.filter((i) => "error" in i).map((i) => ("error" in i ? [i.position, i.error] : []));
    assert.deepEqual(
      errors.map((e) => [e[0], String(e[1]).split(":")[0]]),
      [
        [`conversation 2 (byte ${Buffer.byteLength(good) + 3})`, "conversation has no id"],
        [`conversation 3 (byte ${Buffer.byteLength(good) + 23})`, "a conversation must be a JSON object"],
        [`conversation 4 (byte ${Buffer.byteLength(good) + 27})`, "invalid JSON"],
      ],
    );
    const ids = items.flatMap((i) =>
      "data" in i && i.stream === "conversations" ? [i.data.conversation_id] : [],
    );
    assert.deepEqual(ids, ["c3", "c4"]);
  }),
);

test(
  "message ids are scoped to their conversation: node ids shared by two conversations lose nothing, and a re-import is unchanged",
  withDir(async (dir) => {
    const path = join(dir, "conversations.json");
    // Real exports reuse short node ids across conversations; strip the conversation prefix to collide.
    const collide = (id: string) =>
      JSON.parse(JSON.stringify(branchedConversation(id, T0)).replaceAll(`${id}-`, "")) as Record<
        string,
        unknown
      >;
    writeFileSync(
      path,
      JSON.stringify([
        { ...collide("c1"), id: "c1" },
        { ...collide("c2"), id: "c2" },
      ]),
    );
    const app = await openOwnerApp();
    try {
      const first = await importFile(app.api, { kind: "chatgpt", path });
      assert.deepEqual([first.added, first.updated, first.unchanged, first.rejected], [10, 0, 0, 0]);
      const response = await app.api.fetch(
        new Request("http://127.0.0.1/v1/streams/messages/records?limit=100", {
          headers: { authorization: `Bearer ${app.api.ownerToken}` },
        }),
      );
      const page = (await response.json()) as { data: { id: string; data: { message_id: string } }[] };
      assert.deepEqual(page.data.map((r) => r.id.split(":").slice(1).join(":")).sort(), [
        "c1~a1",
        "c1~a2",
        "c1~u1",
        "c1~u2",
        "c2~a1",
        "c2~a2",
        "c2~u1",
        "c2~u2",
      ]);
      const again = await importFile(app.api, { kind: "chatgpt", path });
      assert.deepEqual([again.added, again.updated, again.unchanged, again.rejected], [0, 0, 10, 0]);
    } finally {
      await app.close();
    }
  }),
);
