// The WhatsApp importer: iOS and Android layouts in en-GB and en-US, multi-line messages, system and media
// lines, the zip, date order inference and --date-order, time zones, rejects, stable ids on re-import.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { importFile } from "../../src/importers/import-file.js";
import type { ImportItem } from "../../src/importers/types.js";
import { openWhatsappSource, type WhatsappOptions } from "../../src/importers/whatsapp.js";
import {
  androidChatLines,
  androidGbChat,
  androidUsChat,
  iosGbChat,
  iosUsChat,
} from "../helpers-importers/life-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-whatsapp-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function itemsOf(path: string, options: WhatsappOptions = {}): Promise<ImportItem[]> {
  const source = await openWhatsappSource(path, { timeZone: "UTC", ...options });
  const items: ImportItem[] = [];
  for await (const item of source.items) items.push(item);
  return items;
}

type Row = [string, string | null, string, string, string | null, string | null, boolean];
/** [position, sender, text, sent_at, kind… ] of each record, errors as ["error", position, reason]. */
function rows(items: ImportItem[]): (Row | string[])[] {
  return items.map((item) =>
    "error" in item
      ? ["error", item.position, item.error]
      : [
          item.position!,
          item.data.sender as string | null,
          item.data.text as string,
          `${item.data.sent_at} ${item.data.kind}`,
          item.data.attachment as string | null,
          item.data.attachment_kind as string | null,
          item.data.media_omitted as boolean,
        ],
  );
}

test(
  "iOS en-GB: system lines, multi-line text, attachments, identical messages in one second",
  withDir(async (dir) => {
    const path = join(dir, "WhatsApp Chat - Family.txt");
    writeFileSync(path, iosGbChat());
    const items = await itemsOf(path);
    assert.deepEqual(rows(items), [
      [
        "line 1",
        null,
        "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them.",
        "2023-12-31T22:15:42.000Z system",
        null,
        null,
        false,
      ],
      ["line 2", null, "Alice added Bob", "2023-12-31T22:15:42.000Z system", null, null, false],
      [
        "line 3",
        "Alice",
        "Happy new year!\nSee you tomorrow\n\nbring the cake",
        "2023-12-31T22:16:01.000Z message",
        null,
        null,
        false,
      ],
      [
        "line 7",
        "Bob",
        "<attached: 00000012-PHOTO-2024-01-01-09-05-00.jpg>",
        "2024-01-01T09:05:00.000Z message",
        "00000012-PHOTO-2024-01-01-09-05-00.jpg",
        "photo",
        false,
      ],
      ["line 8", "Bob", "image omitted", "2024-01-01T09:05:10.000Z message", null, "photo", true],
      ["line 9", "Bob", "ok", "2024-01-01T09:05:10.000Z message", null, null, false],
      ["line 10", "Bob", "ok", "2024-01-01T09:05:10.000Z message", null, null, false],
    ]);
    const data = items.map((i) => ("data" in i ? i.data : {}));
    assert.equal(data[0]!.chat, "Family");
    assert.equal(data[2]!.local_time, "2023-12-31T22:16:01");
    assert.notEqual(data[5]!.message_id, data[6]!.message_id, "identical messages get distinct ids");
    assert.equal(new Set(data.map((d) => d.message_id)).size, data.length);
  }),
);

test(
  "iOS en-US (12-hour with U+202F before AM/PM, 2-digit years) is read month first",
  withDir(async (dir) => {
    const path = join(dir, "_chat.txt");
    writeFileSync(path, iosUsChat());
    assert.deepEqual(rows(await itemsOf(path)), [
      ["line 1", "Alice", "Happy new year!", "2023-12-31T22:15:42.000Z message", null, null, false],
      [
        "line 2",
        "Bob",
        "<attached: 00000013-AUDIO-2024-01-01-00-05-00.opus>",
        "2024-01-01T00:05:00.000Z message",
        "00000013-AUDIO-2024-01-01-00-05-00.opus",
        "audio",
        false,
      ],
      ["line 3", "Alice", "lunch?\nsecond line", "2024-01-01T12:30:00.000Z message", null, null, false],
    ]);
  }),
);

test(
  "Android en-GB and en-US: system lines without a sender, media lines, a day > 12 decides the order",
  withDir(async (dir) => {
    const gb = join(dir, "WhatsApp Chat with Alice.txt");
    writeFileSync(gb, androidGbChat());
    const gbItems = await itemsOf(gb);
    assert.deepEqual(rows(gbItems), [
      [
        "line 1",
        null,
        "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.",
        "2023-12-31T22:15:00.000Z system",
        null,
        null,
        false,
      ],
      [
        "line 2",
        "Alice",
        "Happy new year!\nmulti-line: yes",
        "2023-12-31T22:16:00.000Z message",
        null,
        null,
        false,
      ],
      [
        "line 4",
        "Bob",
        "IMG-20240101-WA0001.jpg (file attached)",
        "2024-01-01T09:05:00.000Z message",
        "IMG-20240101-WA0001.jpg",
        "photo",
        false,
      ],
      ["line 5", "Bob", "<Media omitted>", "2024-01-01T09:06:00.000Z message", null, "media", true],
      ["line 6", null, "Bob added Carol", "2024-01-01T09:07:00.000Z system", null, null, false],
    ]);
    assert.equal("data" in gbItems[0]! && gbItems[0].data.chat, "Alice");

    const us = join(dir, "WhatsApp Chat with Bob.txt");
    writeFileSync(us, androidUsChat());
    assert.deepEqual(rows(await itemsOf(us)), [
      ["line 1", "Alice", "Happy new year!", "2023-12-31T22:16:00.000Z message", null, null, false],
      ["line 2", "Bob", "<Media omitted>", "2024-01-01T09:05:00.000Z message", null, "media", true],
      ["line 3", null, "Bob left", "2024-01-13T09:06:00.000Z system", null, null, false],
    ]);
  }),
);

test(
  "no deciding date: day first by default, --date-order mdy reads it month first; --time-zone converts",
  withDir(async (dir) => {
    const path = join(dir, "chat.txt");
    writeFileSync(path, "03/04/2024, 10:00 - Ann: hi\n");
    const sent = async (options: WhatsappOptions) =>
      (await itemsOf(path, options)).map((i) => ("data" in i ? i.data.sent_at : i.error));
    assert.deepEqual(await sent({}), ["2024-04-03T10:00:00.000Z"]);
    assert.deepEqual(await sent({ dateOrder: "mdy" }), ["2024-03-04T10:00:00.000Z"]);
    assert.deepEqual(await sent({ timeZone: "America/New_York" }), ["2024-04-03T14:00:00.000Z"]);
    await assert.rejects(itemsOf(path, { dateOrder: "ydm" }), /--date-order must be dmy/);
    await assert.rejects(
      itemsOf(path, { timeZone: "Mars/Olympus" }),
      /--time-zone Mars\/Olympus is not a time zone/,
    );
  }),
);

test(
  "a malformed date and text before the first message are rejected with their line; the rest imports",
  withDir(async (dir) => {
    const path = join(dir, "chat.txt");
    writeFileSync(
      path,
      "stray preamble\nmore\n31/12/2023, 22:16 - Alice: ok\n30/02/2024, 10:00 - Bob: bad day\nstill bad\n01/03/2024, 10:00 - Bob: fine\n",
    );
    assert.deepEqual(
      rows(await itemsOf(path)).map((r) => r.slice(0, 3)),
      [
        ["error", "line 1", "text before the first message line (not a WhatsApp chat export line)"],
        ["line 3", "Alice", "ok"],
        ["error", "line 4", "not a date in dmy order: 30/2/2024"],
        ["line 6", "Bob", "fine"],
      ],
    );
  }),
);

test(
  "the export zip: the chat text inside, attachments checked against the zip's media",
  withDir(async (dir) => {
    const path = join(dir, "WhatsApp Chat - Family.zip");
    writeFileSync(
      path,
      buildStoredZip({
        "_chat.txt": iosGbChat(),
        "00000012-PHOTO-2024-01-01-09-05-00.jpg": "jpeg bytes",
      }),
    );
    const items = await itemsOf(path);
    const data = items.map((i) => ("data" in i ? i.data : {}));
    assert.equal(data.length, 7);
    assert.equal(data[0]!.chat, "Family");
    assert.equal(data[3]!.attachment_in_export, true);
    assert.equal(data[2]!.attachment_in_export, null);
    // The same chat as a bare .txt yields the same ids: zip and text imports of one chat coincide.
    const txt = join(dir, "WhatsApp Chat - Family.txt");
    writeFileSync(txt, iosGbChat());
    const fromText = (await itemsOf(txt)).map((i) => ("data" in i ? i.data.message_id : null));
    assert.deepEqual(
      data.map((d) => d.message_id),
      fromText,
    );
  }),
);

test(
  "re-import is all unchanged; a later export with more messages adds only the new ones",
  withDir(async (dir) => {
    const app = await openOwnerApp();
    try {
      const path = join(dir, "WhatsApp Chat with Team.txt");
      const lines = androidChatLines(40);
      writeFileSync(path, lines.slice(0, 30).join("\n"));
      const flags = { timeZone: "Europe/London" };
      const first = await importFile(app.api, { kind: "whatsapp", path, flags });
      assert.equal(first.connectionLabel, "WhatsApp");
      assert.deepEqual([first.read, first.added, first.rejected], [30, 30, 0]);
      const again = await importFile(app.api, { kind: "whatsapp", path, flags });
      assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 30]);
      writeFileSync(path, lines.join("\n"));
      const later = await importFile(app.api, { kind: "whatsapp", path, flags });
      assert.equal(later.connectionId, first.connectionId);
      assert.deepEqual([later.added, later.updated, later.unchanged], [10, 0, 30]);
    } finally {
      await app.close();
    }
  }),
);
