// Crash safety: kill -9 an import child mid-run; the store opens cleanly holding only whole batches,
// and a re-run completes the import with no duplicates and counts that add up.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { newToken } from "../../src/core/ids.js";
import type { StreamDef } from "../../src/core/manifest.js";
import { importFile } from "../../src/importers/import-file.js";
import { MBOX_MANIFEST } from "../../src/importers/mbox-manifest.js";
import { WHATSAPP_MANIFEST } from "../../src/importers/whatsapp-manifest.js";
import { androidChatLines } from "../helpers-importers/life-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { simpleMbox } from "../helpers-importers/simple-mbox.js";

const CHILD = fileURLToPath(new URL("../helpers-importers/import-child.ts", import.meta.url));
const TOTAL = 6000;
const BATCH = 100;

interface CrashCase {
  kind: string;
  fileName: string;
  content: string;
  connectorKey: string;
  stream: StreamDef;
  flags?: Record<string, unknown>;
}

test("kill -9 during an import, then re-run: whole batches only, no duplicates", () =>
  crashAndRerun({
    kind: "mbox",
    fileName: "mail.mbox",
    content: simpleMbox(TOTAL),
    connectorKey: "mbox",
    stream: MBOX_MANIFEST.streams[0]!,
  }));

test("kill -9 during a WhatsApp import, then re-run: no duplicates", () =>
  crashAndRerun({
    kind: "whatsapp",
    fileName: "WhatsApp Chat with Team.txt",
    content: androidChatLines(TOTAL).join("\n"),
    connectorKey: "whatsapp",
    stream: WHATSAPP_MANIFEST.streams[0]!,
    flags: { timeZone: "UTC" },
  }));

async function crashAndRerun(crash: CrashCase): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-crash-"));
  try {
    const dbPath = join(dir, "pdpp.db");
    const mboxPath = join(dir, crash.fileName);
    writeFileSync(mboxPath, crash.content);
    const ownerToken = newToken("owner");
    const flagsJson = JSON.stringify(crash.flags ?? {});

    const child = spawn(
      process.execPath,
      ["--import", "tsx", CHILD, dbPath, mboxPath, ownerToken, String(BATCH), crash.kind, flagsJson],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exit = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    let output = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (data: Buffer) => {
        output += data.toString();
        if (/batch 3 /.test(output)) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("exit", () => reject(new Error(`child ended before the kill: ${output}`)));
    });
    assert.equal(await exit, "SIGKILL");
    assert.ok(!output.includes("done"), "the import was still running when killed");

    const app = await openOwnerApp({ path: dbPath, ownerToken });
    try {
      const scope = (connectionId: string) => ({
        connectorKey: crash.connectorKey,
        stream: crash.stream,
        connectionIds: [connectionId],
        fields: "all" as const,
        since: null,
        until: null,
      });
      const [connection] = await app.store.listConnections();
      assert.ok(connection);
      const before =
        (await app.store.countRecords(scope(connection.connection_id)))[connection.connection_id] ?? 0;
      assert.ok(before >= 3 * BATCH && before < TOTAL, `stored ${before}`);
      assert.equal(before % BATCH, 0, "only whole batches were committed");

      const rerun = await importFile(app.api, {
        kind: crash.kind,
        path: mboxPath,
        flags: crash.flags,
        connectionLabel: "Crash mail",
        batchSize: BATCH,
      });
      assert.equal(rerun.connectionId, connection.connection_id);
      assert.deepEqual(
        [rerun.read, rerun.added, rerun.unchanged, rerun.updated, rerun.rejected],
        [TOTAL, TOTAL - before, before, 0, 0],
      );
      const after = (await app.store.countRecords(scope(connection.connection_id)))[connection.connection_id];
      assert.equal(after, TOTAL);
      const ids = new Set<string>();
      let cursor: string | null = null;
      do {
        const url = new URL("/v1/streams/messages/records", app.api.baseUrl);
        url.searchParams.set("limit", "100");
        url.searchParams.set("fields", crash.stream.primary_key[0]!);
        if (cursor) url.searchParams.set("cursor", cursor);
        const res = await app.api.fetch(
          new Request(url, { headers: { authorization: `Bearer ${ownerToken}` } }),
        );
        assert.equal(res.status, 200);
        const page = (await res.json()) as { data: { record_id: string }[]; next_cursor: string | null };
        for (const r of page.data) ids.add(r.record_id);
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(ids.size, TOTAL);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
