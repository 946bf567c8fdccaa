// WhatsApp exports in 14 languages, Android and iOS, each imported into a real store and read back over
// MCP: the locale's header form and clock, its day/month order (no date has a day above 12, so the
// language, the clock and the dates' form must decide), its localised marks and file names.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { importFile } from "../../src/importers/import-file.js";
import { WHATSAPP_MANIFEST } from "../../src/importers/whatsapp-manifest.js";
import { agentView } from "../helpers-importers/agent-view.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import {
  ANDROID_TIMES,
  androidChat,
  type ExpectedMessage,
  IOS_TIMES,
  iosChat,
  LOCALE_CHATS,
} from "../helpers-importers/whatsapp-locales.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

const ORDER_WORDS = { dmy: "day/month/year", mdy: "month/day/year", ymd: "year/month/day" };

test("every locale's Android and iOS export imports with its own header, clock, order and marks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-whatsapp-locales-"));
  const app = await openOwnerApp();
  try {
    const agent = await agentView(app, [WHATSAPP_MANIFEST]);
    for (const locale of LOCALE_CHATS) {
      for (const platform of ["android", "ios"] as const) {
        const label = `${locale.id} ${platform}`;
        const chat = platform === "android" ? androidChat(locale) : iosChat(locale);
        const path = join(dir, platform === "android" ? locale.androidFile : locale.iosZip);
        writeFileSync(
          path,
          platform === "android"
            ? chat.text
            : buildStoredZip({ "_chat.txt": chat.text, "00000003-PHOTO-2024-01-05-21-30-00.jpg": "jpeg" }),
        );
        const result = await importFile(app.api, {
          kind: "whatsapp",
          path,
          connectionLabel: label,
          flags: { timeZone: "UTC" },
        });
        assert.deepEqual(
          [result.read, result.added, result.rejected],
          [chat.expected.length, chat.expected.length, 0],
          label,
        );
        assert.match(
          result.notes[0]!,
          new RegExp(`^dates read as ${ORDER_WORDS[locale.order]} \\(--date-order ${locale.order}\\), `),
          label,
        );
        assert.equal(result.notes[1], "times read as UTC wall-clock time (--time-zone)");

        const page = await agent.call("query_records", {
          stream: "messages",
          connection_id: result.connectionId,
          sort: "sent_at",
          limit: 100,
        });
        const records = (page.data as { data: { data: Record<string, unknown> }[] }).data.map((r) => r.data);
        const times = platform === "android" ? ANDROID_TIMES : IOS_TIMES;
        const seen = records.map((r) => ({
          sender: r.sender ?? null,
          kind: r.kind,
          time: times.indexOf(r.sent_at as string),
          edited: r.edited,
          media_omitted: r.media_omitted,
          attachment_kind: r.attachment_kind ?? null,
        }));
        // Messages of one minute come back in id order: compare as sorted lists.
        const sorted = (list: ExpectedMessage[]) => list.map((m) => JSON.stringify(m)).sort();
        assert.deepEqual(sorted(seen as ExpectedMessage[]), sorted(chat.expected), label);
        assert.deepEqual(new Set(records.map((r) => r.chat)), new Set(["Trip"]), label);
        const multiLine = records.find((r) => r.sender === "Bruno" && r.kind === "message");
        assert.equal(multiLine?.text, "line one\nline two", label);
        const edited = records.find((r) => r.edited === true);
        if (edited) assert.equal(edited.text, "see you", label);
        const subject = records.find((r) => r.kind === "system");
        if (subject) assert.equal(subject.text, locale.subjectChange, label);
      }
    }
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
