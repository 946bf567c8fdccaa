// What `pdpp import` says (issue 19 item 10): a bracketed chat line is no JSON, a folder of another
// format given to an importer names the right one, a re-run that skips unchanged logs reports their
// rejections again, and each format's --help lists its own options once.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Command } from "commander";
import { register } from "../../src/cli/commands/import.js";
import type { PdppError } from "../../src/core/errors.js";
import { detectFormat } from "../../src/importers/detect.js";
import { importFile } from "../../src/importers/import-file.js";
import { ccEntry, cx, jsonl } from "../helpers-importers/agent-fixtures.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";
import { withDir } from "../helpers-importers/temp-dir.js";

function program(app: OwnerApp | null): Command {
  const root = new Command("pdpp").configureHelp({ showGlobalOptions: true }).option("--home <dir>", "home");
  register(root, {
    home: app?.dir ?? "",
    openApp: async () => (app ? { ...app.api, close: async () => {} } : Promise.reject(new Error("unused"))),
  });
  return root;
}

function helpOf(name: string): string {
  const sub = program(null)
    .commands.find((c) => c.name() === "import")!
    .commands.find((c) => c.name() === name)!;
  return sub.helpInformation();
}

test("each format's --help lists its own options once, and no other format's", () => {
  const ical = helpOf("ical");
  for (const flag of [
    "--time-zone <zone>",
    "--expand-from <date>",
    "--expand-until <date>",
    "--connection <label>",
  ]) {
    assert.equal(ical.split(flag).length - 1, 1, `${flag} in:\n${ical}`);
  }
  assert.ok(!ical.includes("--date-order") && !ical.includes("--chat"), ical);
  assert.match(ical, /Global Options:\n {2}--home <dir>/);
  const whatsapp = helpOf("whatsapp");
  assert.ok(!whatsapp.includes("--expand-from"), whatsapp);
  assert.equal(whatsapp.split("--time-zone <zone>").length - 1, 1, whatsapp);
});

test(
  "a chat whose lines start with a bracketed date is no JSON: a Finnish iOS export is WhatsApp, an unknown one plain text",
  withDir("pdpp-import-messages-", async (dir) => {
    writeFileSync(
      join(dir, "_chat.txt"),
      "[12.3.2022 klo 14.08.18] Anna: Moi!\n[12.3.2022 klo 14.09.02] Bruno: Hei\n",
    );
    assert.equal((await detectFormat(join(dir, "_chat.txt"))).format.name, "whatsapp");
    writeFileSync(
      join(dir, "log.txt"),
      "[2022-03-12T14:08:01Z] server started\n[2022-03-12T14:09:00Z] ready\n",
    );
    await assert.rejects(detectFormat(join(dir, "log.txt")), (error: PdppError) => {
      assert.match(
        error.message,
        /^cannot tell the format of log\.txt \(plain text no importer recognizes\): pass the format, pdpp import <format> .*log\.txt, one of mbox/,
      );
      assert.ok(!error.message.includes("JSON"), error.message);
      return true;
    });
  }),
);

test(
  "a Codex sessions folder given to claude-code, and a calendar given to whatsapp, name the format they are",
  withDir("pdpp-import-messages-", async (dir) => {
    const day = join(dir, "sessions", "2025", "01", "02");
    mkdirSync(day, { recursive: true });
    writeFileSync(
      join(day, "rollout-2025-01-02T00-00-00-x.jsonl"),
      jsonl([cx("2025-01-02T00:00:00Z", "session_meta", { id: "x", cwd: "/home/ana" })]),
    );
    writeFileSync(join(dir, "cal.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n");
    const app = await openOwnerApp();
    try {
      const run = (args: string[]) => program(app).parseAsync(["node", "pdpp", "import", ...args]);
      await assert.rejects(run(["claude-code", join(dir, "sessions")]), (error: PdppError) => {
        assert.match(error.message, / sessions looks like codex: pdpp import codex .*sessions$/);
        return true;
      });
      await assert.rejects(run(["whatsapp", join(dir, "cal.ics")]), (error: PdppError) => {
        assert.match(
          error.message,
          /^nothing imported from cal\.ics: .* cal\.ics looks like ical: pdpp import ical .*cal\.ics$/,
        );
        return true;
      });
    } finally {
      await app.close();
    }
  }),
);

test(
  "a re-run that skips an unchanged log reports the rejections it had when read",
  withDir("pdpp-import-messages-", async (dir) => {
    const project = join(dir, "projects", "-home-ana-shop");
    mkdirSync(project, { recursive: true });
    const good = ccEntry("s1", "u1", "2025-01-01T00:00:00Z", {
      type: "user",
      message: { role: "user", content: "hi" },
    });
    writeFileSync(join(project, "s1.jsonl"), `${jsonl([good])}{"type": "user", "broken\n`);
    const app = await openOwnerApp();
    try {
      const options = {
        kind: "claude-code",
        path: join(dir, "projects"),
        stateDir: join(app.dir, "import-state"),
      };
      const first = await importFile(app.api, options);
      assert.equal(first.rejected, 1);
      const again = await importFile(app.api, options);
      assert.deepEqual([again.files?.files, again.files?.filesRead], [1, 0]);
      assert.equal(again.rejected, 1);
      assert.deepEqual(again.rejections, first.rejections);
    } finally {
      await app.close();
    }
  }),
);
