// Which day/month order a WhatsApp export is read in, and what the summary says: a US export with no
// day above 12 is month first; a later deciding date decides; a contradicting --date-order is refused;
// correcting an assumed order re-dates the same records, and an import over the first importer's records
// (which read that US export day first) leaves no duplicate. Read back over MCP, on both stores.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { formatSummary } from "../../src/cli/commands/import.js";
import { importFile } from "../../src/importers/import-file.js";
import { openOwnerSink } from "../../src/importers/owner-sink.js";
import { WHATSAPP_MANIFEST } from "../../src/importers/whatsapp-manifest.js";
import { testBackends } from "../helpers/backends.js";
import { agentView } from "../helpers-importers/agent-view.js";
import { openOwnerApp, openOwnerAppOn } from "../helpers-importers/owner-app.js";
import { withDir } from "../helpers-importers/temp-dir.js";

const NNBSP = "\u202f";

/** A US Android export (AM/PM) of one week in January: no day above 12 anywhere. */
const US_CHAT = [
  `1/5/24, 9:05${NNBSP}AM - Anna: are we on for Saturday?`,
  `1/5/24, 9:07${NNBSP}AM - Bob: yes`,
  `1/6/24, 7:30${NNBSP}PM - Anna: running late`,
  `1/6/24, 7:31${NNBSP}PM - Bob: ok`,
].join("\n");

test(
  "a US export without a day above 12 is read month first, and the summary says why and how to override",
  withDir("pdpp-whatsapp-order-", async (dir) => {
    const app = await openOwnerApp();
    try {
      const path = join(dir, "WhatsApp Chat with Bob.txt");
      writeFileSync(path, US_CHAT);
      const result = await importFile(app.api, { kind: "whatsapp", path, flags: { timeZone: "UTC" } });
      const summary = formatSummary(result, path).split("\n");
      assert.equal(
        summary[3],
        "  dates read as month/day/year (--date-order mdy), assumed: no date has a day above 12, and the AM/PM clock is the United States' form, month first. If that is wrong, import again with --date-order dmy (day/month/year): the messages are corrected, not doubled",
      );
      assert.equal(summary[4], "  times read as UTC wall-clock time (--time-zone)");
      const agent = await agentView(app, [WHATSAPP_MANIFEST]);
      const page = await agent.call("query_records", {
        stream: "messages",
        sort: "sent_at",
        fields: ["sent_at"],
      });
      assert.deepEqual(
        (page.data as { data: { data: { sent_at: string } }[] }).data.map((r) => r.data.sent_at),
        [
          "2024-01-05T09:05:00.000Z",
          "2024-01-05T09:07:00.000Z",
          "2024-01-06T19:30:00.000Z",
          "2024-01-06T19:31:00.000Z",
        ],
      );
    } finally {
      await app.close();
    }
  }),
);

test(
  "a deciding date late in the file decides for every line; a --date-order it contradicts is refused",
  withDir("pdpp-whatsapp-order-", async (dir) => {
    const path = join(dir, "chat.txt");
    const lines = Array.from(
      { length: 60 },
      (_, i) => `0${1 + (i % 9)}/02/2024, 10:${String(i).padStart(2, "0")} - Ann: m${i}`,
    );
    lines.push("14/02/2024, 11:00 - Ann: valentine");
    writeFileSync(path, lines.join("\n"));
    const app = await openOwnerApp();
    try {
      const result = await importFile(app.api, { kind: "whatsapp", path, flags: { timeZone: "UTC" } });
      assert.equal(
        result.notes[0],
        "dates read as day/month/year (--date-order dmy), decided by the dates: line 61 (14/02/2024, 11:00) is no date month/day/year",
      );
      assert.equal(result.deleted ?? 0, 0);
      await assert.rejects(
        importFile(app.api, { kind: "whatsapp", path, flags: { timeZone: "UTC", dateOrder: "mdy" } }),
        /^PdppError: --date-order mdy does not fit the file: line 61 \(14\/02\/2024, 11:00\) is no date month\/day\/year; leave --date-order out to let the dates decide\.$/,
      );
    } finally {
      await app.close();
    }
  }),
);

/** The first importer's id of a message: its chat, local time, sender, text and ordinal. */
function firstImporterId(chat: string, local: string, sender: string, text: string): string {
  return createHash("sha256")
    .update(`${chat}\u0000${local}\u0000${sender}\u0000${text}\u00000`)
    .digest("hex")
    .slice(0, 32);
}

for (const backend of testBackends()) {
  test(`${backend.name}: correcting an assumed order re-dates the same records; nothing is doubled`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-whatsapp-order-"));
    const app = await openOwnerAppOn(backend);
    try {
      // No hint at all: a 24-hour clock, slashes, a file name in no language. Day first is assumed.
      const path = join(dir, "chat.txt");
      writeFileSync(
        path,
        "03/04/2024, 10:00 - Ann: hi\n03/04/2024, 10:01 - Ben: hello\n05/04/2024, 09:00 - Ann: bye\n",
      );
      const first = await importFile(app.api, { kind: "whatsapp", path, flags: { timeZone: "UTC" } });
      assert.match(first.notes[0]!, /^dates read as day\/month\/year .*import again with --date-order mdy/);
      const fixed = await importFile(app.api, {
        kind: "whatsapp",
        path,
        flags: { timeZone: "UTC", dateOrder: "mdy" },
      });
      assert.deepEqual([fixed.added, fixed.updated, fixed.unchanged, fixed.deleted], [3, 0, 0, 3]);
      const agent = await agentView(app, [WHATSAPP_MANIFEST]);
      const page = await agent.call("query_records", { stream: "messages", sort: "sent_at", count: "exact" });
      const list = page.data as { data: { data: { sent_at: string } }[]; meta: { count: number } };
      assert.equal(list.meta.count, 3);
      assert.deepEqual(
        list.data.map((r) => r.data.sent_at),
        ["2024-03-04T10:00:00.000Z", "2024-03-04T10:01:00.000Z", "2024-05-04T09:00:00.000Z"],
      );
      const again = await importFile(app.api, {
        kind: "whatsapp",
        path,
        flags: { timeZone: "UTC", dateOrder: "mdy" },
      });
      assert.deepEqual([again.added, again.updated, again.unchanged, again.deleted ?? 0], [0, 0, 3, 0]);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`${backend.name}: importing over the first importer's records (which read a US export day first) leaves one record per message`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-whatsapp-order-"));
    const app = await openOwnerAppOn(backend);
    try {
      // What the first importer (manifest version 1) stored for US_CHAT: day first, so 5 January was 1 May.
      const v1 = { ...WHATSAPP_MANIFEST, version: "1" };
      const sink = await openOwnerSink(app.api, { manifest: v1, connectionLabel: "WhatsApp" });
      const misread = [
        ["2024-05-01T09:05:00", "Anna", "are we on for Saturday?"],
        ["2024-05-01T09:07:00", "Bob", "yes"],
        ["2024-06-01T19:30:00", "Anna", "running late"],
        ["2024-06-01T19:31:00", "Bob", "ok"],
      ] as const;
      await sink.write(
        "messages",
        misread.map(([local, sender, text]) => ({
          message_id: firstImporterId("Bob", local, sender, text),
          chat: "Bob",
          sender,
          text,
          sent_at: `${local}.000Z`,
          local_time: local,
          kind: "message",
          attachment: null,
          attachment_kind: null,
          media_omitted: false,
          attachment_in_export: null,
        })),
      );
      const path = join(dir, "WhatsApp Chat with Bob.txt");
      writeFileSync(path, US_CHAT);
      const result = await importFile(app.api, { kind: "whatsapp", path, flags: { timeZone: "UTC" } });
      assert.deepEqual([result.added, result.deleted], [4, 4]);
      const agent = await agentView(app, [WHATSAPP_MANIFEST]);
      const count = await agent.call("aggregate", {
        stream: "messages",
        metric: "count",
        group_by_time: "sent_at",
        granularity: "month",
      });
      assert.deepEqual(
        (count.data as { groups: { key: string; value: number }[] }).groups.map((g) => [g.key, g.value]),
        [["2024-01", 4]],
      );
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
