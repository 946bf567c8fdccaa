// The WhatsApp importer: iOS and Android layouts in en-GB and en-US, multi-line messages, system and media
// lines, senders of notices and deleted messages, edit marks, chat names, the zip, time zones, rejects,
// stable ids on re-import. Locales: whatsapp-locales.test.ts; date order: whatsapp-date-order.test.ts.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
import { androidGroupChat, iosGroupChat } from "../helpers-importers/whatsapp-locales.js";
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
  for await (const item of source.items) if (!("op" in item && item.op === "delete")) items.push(item);
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
    assert.deepEqual(rows(await itemsOf(path, { chat: "Family" })), [
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
  "--time-zone converts the wall-clock times; an unknown zone or date order is refused",
  withDir(async (dir) => {
    const path = join(dir, "chat.txt");
    writeFileSync(path, "13/04/2024, 10:00 - Ann: hi\n");
    const sent = async (options: WhatsappOptions) =>
      (await itemsOf(path, options)).map((i) => ("data" in i ? i.data.sent_at : i.error));
    assert.deepEqual(await sent({}), ["2024-04-13T10:00:00.000Z"]);
    assert.deepEqual(await sent({ timeZone: "America/New_York" }), ["2024-04-13T14:00:00.000Z"]);
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
        ["error", "line 4", "not a date read day/month/year: 30/2/2024"],
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

type Seen = [string | null, string, string, boolean, string | null, string | null];
/** [sender, kind, text, edited, attachment, attachment_kind] of each record. */
function seen(items: ImportItem[]): Seen[] {
  return items.map((i) => {
    assert.ok("data" in i, JSON.stringify(i));
    const d = i.data;
    return [
      d.sender as string | null,
      d.kind as string,
      d.text as string,
      d.edited as boolean,
      d.attachment as string | null,
      d.attachment_kind as string | null,
    ];
  });
}

test(
  "senders and kinds: notices, a subject with a colon, deleted messages alike on both platforms, ~ names, edit marks, documents, locations",
  withDir(async (dir) => {
    const ios = join(dir, "WhatsApp Chat - Trip.zip");
    writeFileSync(ios, buildStoredZip({ "_chat.txt": iosGroupChat(), "00000009-Report.pdf": "%PDF" }));
    const iosItems = await itemsOf(ios);
    assert.deepEqual(seen(iosItems), [
      [
        null,
        "system",
        "Messages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them.",
        false,
        null,
        null,
      ],
      [null, "system", 'Anna changed the subject to "Trip: Lisbon 2024"', false, null, null],
      [
        "Anna",
        "message",
        "Report.pdf • 3 pages <attached: 00000009-Report.pdf>",
        false,
        "00000009-Report.pdf",
        "document",
      ],
      ["Bruno", "deleted", "This message was deleted.", false, null, null],
      ["Carla", "message", "Location: https://maps.google.com/?q=38.7223,-9.1393", false, null, "location"],
      ["Carla", "message", "meet at 10", true, null, null],
      ["Anna", "deleted", "You deleted this message.", false, null, null],
      ["Bruno", "message", "Missed voice call", false, null, null],
    ]);
    assert.equal("data" in iosItems[2]! && iosItems[2].data.attachment_in_export, true);

    const android = join(dir, "WhatsApp Chat with Trip.txt");
    writeFileSync(android, androidGroupChat());
    assert.deepEqual(seen(await itemsOf(android)), [
      [
        null,
        "system",
        "Messages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them. Learn more.",
        false,
        null,
        null,
      ],
      [null, "system", 'Anna changed the subject from "Trip" to "Trip: Lisbon 2024"', false, null, null],
      ["Anna", "message", "Report.pdf (file attached)", false, "Report.pdf", "document"],
      ["Bruno", "deleted", "This message was deleted", false, null, null],
      ["Carla", "message", "location: https://maps.google.com/?q=38.7223,-9.1393", false, null, "location"],
      ["Carla", "message", "meet at 10", true, null, null],
      ["Anna", "deleted", "You deleted this message", false, null, null],
    ]);
  }),
);

test(
  "chat names: localised file names, an iOS zip's name, the folder of an unzipped _chat.txt, --chat; a bare _chat.txt asks for --chat",
  withDir(async (dir) => {
    const chatOf = async (path: string, options: WhatsappOptions = {}) => {
      const [first] = await itemsOf(path, options);
      return first && "data" in first ? first.data.chat : first;
    };
    const text = "05/01/2024, 09:05 - Oma: <Medien ausgeschlossen>\n13/01/2024, 09:06 - Max: Hallo";
    const names: [string, string][] = [
      ["WhatsApp Chat mit Oma.txt", "Oma"],
      ["Discussion WhatsApp avec Marie.txt", "Marie"],
      ["Chat de WhatsApp con Ana.txt", "Ana"],
      ["Conversa do WhatsApp com João.txt", "João"],
      ["WhatsApp-chat met Sanne.txt", "Sanne"],
      ["Чат WhatsApp с Ольга.txt", "Ольга"],
      ["WhatsApp_Chat_with_Bob_Smith.txt", "Bob Smith"],
      ["WhatsApp Chat with Bob (1).txt", "Bob"],
      ["notes.txt", "notes"],
    ];
    for (const [file, chat] of names) {
      writeFileSync(join(dir, file), text);
      assert.equal(await chatOf(join(dir, file)), chat, file);
    }
    const [omitted] = await itemsOf(join(dir, "WhatsApp Chat mit Oma.txt"));
    assert.deepEqual("data" in omitted! && [omitted.data.media_omitted, omitted.data.attachment_kind], [
      true,
      "media",
    ]);
    writeFileSync(join(dir, "Chat WhatsApp con Luca.zip"), buildStoredZip({ "_chat.txt": text }));
    assert.equal(await chatOf(join(dir, "Chat WhatsApp con Luca.zip")), "Luca");
    mkdirSync(join(dir, "WhatsApp Chat - Family"));
    writeFileSync(join(dir, "WhatsApp Chat - Family", "_chat.txt"), text);
    assert.equal(await chatOf(join(dir, "WhatsApp Chat - Family", "_chat.txt")), "Family");
    writeFileSync(join(dir, "_chat.txt"), text);
    assert.equal(await chatOf(join(dir, "_chat.txt"), { chat: "Oma" }), "Oma");
    await assert.rejects(
      itemsOf(join(dir, "_chat.txt")),
      /_chat\.txt does not say which chat it is \(iOS names every chat _chat\.txt\): pass --chat "<name>", or import the export zip\./,
    );
  }),
);
