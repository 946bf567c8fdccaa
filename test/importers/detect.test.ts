// `pdpp import FILE` auto-detection: each fixture is recognized as its format, unclear input is refused
// with a message naming what to do.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { PdppError } from "../../src/core/errors.js";
import { detectFormat } from "../../src/importers/detect.js";
import { IMPORT_FORMATS } from "../../src/importers/registry.js";
import { branchedConversation } from "../helpers-importers/chatgpt-fixture.js";
import { foldedUtf8Calendar, outlookCalendar, teamCalendar } from "../helpers-importers/ical-fixtures.js";
import {
  androidGbChat,
  androidUsChat,
  berlinCalendar,
  iosGbChat,
  iosUsChat,
  takeoutFiles,
} from "../helpers-importers/life-fixtures.js";
import { simpleMbox } from "../helpers-importers/simple-mbox.js";
import { germanTakeout, youtubeTakeout } from "../helpers-importers/takeout-fixtures.js";
import {
  androidChat,
  androidGroupChat,
  iosChat,
  iosGroupChat,
  LOCALE_CHATS,
} from "../helpers-importers/whatsapp-locales.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-detect-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function detected(path: string): Promise<string> {
  return (await detectFormat(path)).format.name;
}

async function refusal(path: string): Promise<string> {
  try {
    const { format } = await detectFormat(path);
    return `chose ${format.name}`;
  } catch (error) {
    assert.ok(error instanceof PdppError, String(error));
    return error.message;
  }
}

const chatgptJson = () => JSON.stringify([branchedConversation("c1", 1_700_000_000)], null, 2);

test("every format name is registered once; generic formats never take part in detection", () => {
  const names = IMPORT_FORMATS.map((f) => f.name);
  assert.equal(new Set(names).size, names.length);
  for (const name of ["mbox", "chatgpt", "jsonl", "json", "csv"]) assert.ok(names.includes(name), name);
});

test(
  "detects mbox and ChatGPT (file and zip)",
  withDir(async (dir) => {
    writeFileSync(join(dir, "All mail.mbox"), simpleMbox(3));
    writeFileSync(join(dir, "conversations.json"), chatgptJson());
    writeFileSync(
      join(dir, "export.zip"),
      buildStoredZip({ "user.json": "{}", "conversations.json": chatgptJson(), "chat.html": "<html>" }),
    );
    assert.equal(await detected(join(dir, "All mail.mbox")), "mbox");
    assert.equal(await detected(join(dir, "conversations.json")), "chatgpt");
    assert.equal(await detected(join(dir, "export.zip")), "chatgpt");
  }),
);

test(
  "detects WhatsApp (four layouts, .txt and zip), iCalendar and Takeout (zip and folder)",
  withDir(async (dir) => {
    const chats = {
      ios_gb: iosGbChat(),
      ios_us: iosUsChat(),
      android_gb: androidGbChat(),
      android_us: androidUsChat(),
    };
    for (const [name, text] of Object.entries(chats)) {
      writeFileSync(join(dir, `${name}.txt`), text);
      assert.equal(await detected(join(dir, `${name}.txt`)), "whatsapp", name);
    }
    writeFileSync(
      join(dir, "WhatsApp Chat - Family.zip"),
      buildStoredZip({ "_chat.txt": iosGbChat(), "a.jpg": "x" }),
    );
    assert.equal(await detected(join(dir, "WhatsApp Chat - Family.zip")), "whatsapp");
    writeFileSync(
      join(dir, "android.zip"),
      buildStoredZip({ "WhatsApp Chat with Alice.txt": androidGbChat(), "IMG-20240101-WA0001.jpg": "x" }),
    );
    assert.equal(await detected(join(dir, "android.zip")), "whatsapp");
    writeFileSync(join(dir, "family.ics"), berlinCalendar());
    assert.equal(await detected(join(dir, "family.ics")), "ical");
    writeFileSync(join(dir, "takeout.zip"), buildStoredZip(takeoutFiles()));
    assert.equal(await detected(join(dir, "takeout.zip")), "takeout");
    for (const [name, content] of Object.entries(takeoutFiles())) {
      mkdirSync(dirname(join(dir, "folder", name)), { recursive: true });
      writeFileSync(join(dir, "folder", name), content);
    }
    assert.equal(await detected(join(dir, "folder")), "takeout");
  }),
);

test(
  "refuses a plain text file, JSON records, an unknown zip and a missing file, saying what to pass",
  withDir(async (dir) => {
    writeFileSync(join(dir, "notes.txt"), "Shopping list\nmilk\neggs\n");
    assert.match(
      await refusal(join(dir, "notes.txt")),
      /^cannot tell the format of notes\.txt \(plain text no importer recognizes\): pass the format, pdpp import <format> .*notes\.txt, one of mbox, chatgpt/,
    );
    writeFileSync(join(dir, "rows.json"), '[{"id": 1, "name": "a"}]');
    assert.match(
      await refusal(join(dir, "rows.json")),
      /JSON no importer recognizes.*for a JSON array of records use pdpp import json .*rows\.json --infer\.$/,
    );
    writeFileSync(join(dir, "photos.zip"), buildStoredZip({ "a.jpg": "x" }));
    assert.match(await refusal(join(dir, "photos.zip")), /\(a zip no importer recognizes\)/);
    mkdirSync(join(dir, "empty-folder"));
    assert.match(await refusal(join(dir, "empty-folder")), /\(a folder no importer recognizes\)/);
    assert.match(
      await refusal(join(dir, "missing.txt")),
      /^cannot read .*missing\.txt: check that the file exists\.$/,
    );
  }),
);

test(
  "detects every new real-layout fixture: WhatsApp in 14 languages (Android .txt, iOS zip), group chats, calendars, localised Takeouts",
  withDir(async (dir) => {
    for (const locale of LOCALE_CHATS) {
      const android = join(dir, `${locale.id}-${locale.androidFile}`);
      writeFileSync(android, androidChat(locale).text);
      assert.equal(await detected(android), "whatsapp", `${locale.id} android`);
      const ios = join(dir, `${locale.id}-${locale.iosZip}`);
      writeFileSync(ios, buildStoredZip({ "_chat.txt": iosChat(locale).text, "a.jpg": "x" }));
      assert.equal(await detected(ios), "whatsapp", `${locale.id} ios`);
    }
    writeFileSync(join(dir, "ios-group.txt"), iosGroupChat());
    writeFileSync(join(dir, "android-group.txt"), androidGroupChat());
    assert.equal(await detected(join(dir, "ios-group.txt")), "whatsapp");
    assert.equal(await detected(join(dir, "android-group.txt")), "whatsapp");
    const calendars: [string, string | Buffer][] = [
      ["team.ics", teamCalendar()],
      ["outlook.ics", outlookCalendar()],
      ["folded.ics", foldedUtf8Calendar("Grüße ☕ aus Köln")],
    ];
    for (const [name, content] of calendars) {
      writeFileSync(join(dir, name), content);
      assert.equal(await detected(join(dir, name)), "ical", name);
    }
    for (const [name, files] of Object.entries({ german: germanTakeout(), youtube: youtubeTakeout() })) {
      writeFileSync(join(dir, `${name}.zip`), buildStoredZip(files));
      assert.equal(await detected(join(dir, `${name}.zip`)), "takeout", name);
      for (const [member, content] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, name, member)), { recursive: true });
        writeFileSync(join(dir, name, member), content);
      }
      assert.equal(await detected(join(dir, name)), "takeout", `${name} folder`);
    }
  }),
);
