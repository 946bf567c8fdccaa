// The Google Takeout importer: zip and folder, My Activity for two products, Chrome BrowserHistory.json,
// skipped parts named in the summary, a malformed item with its position, re-import unchanged.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { formatSummary } from "../../src/cli/commands/import.js";
import { importFile } from "../../src/importers/import-file.js";
import { openTakeoutSource } from "../../src/importers/takeout.js";
import type { ImportItem } from "../../src/importers/types.js";
import { activityItems, takeoutFiles } from "../helpers-importers/life-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-takeout-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function writeFolder(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
}

async function read(path: string): Promise<{ items: ImportItem[]; notes: string[] }> {
  const source = await openTakeoutSource(path);
  const items: ImportItem[] = [];
  for await (const item of source.items) items.push(item);
  assert.equal(source.bytesRead(), source.totalBytes);
  return { items, notes: source.notes?.() ?? [] };
}

const READ = "read: Chrome (1 file), My Activity/Search (1 file), My Activity/YouTube (1 file)";
const SKIPPED =
  "skipped parts of the Takeout (no importer for them): archive_browser.html (1 file), Drive (2 files), My Activity/Maps (HTML: export it as JSON) (1 file)";

test(
  "a Takeout zip and the same Takeout as a folder give the same records and name the skipped parts",
  withDir(async (dir) => {
    const zip = join(dir, "takeout-20240101T000000Z-001.zip");
    writeFileSync(zip, buildStoredZip(takeoutFiles()));
    writeFolder(join(dir, "folder"), takeoutFiles());
    const fromZip = await read(zip);
    const fromFolder = await read(join(dir, "folder"));
    assert.deepEqual(fromZip.notes, [READ, SKIPPED]);
    const summary = (r: { items: ImportItem[] }) =>
      r.items.map((i) => ("error" in i ? i.error : `${i.stream} ${i.position}`));
    const expected = [
      "browser_history Chrome/BrowserHistory.json item 1",
      "browser_history Chrome/BrowserHistory.json item 2",
      "browser_history Chrome/BrowserHistory.json item 3",
      "browser_history Chrome/BrowserHistory.json item 4",
      "activity My Activity/Search/MyActivity.json item 1",
      "activity My Activity/Search/MyActivity.json item 2",
      "activity My Activity/Search/MyActivity.json item 3",
      "activity My Activity/YouTube/MyActivity.json item 1",
      "activity My Activity/YouTube/MyActivity.json item 2",
    ];
    // A zip keeps its own member order, a folder is listed sorted: compare as sets of the same records.
    assert.deepEqual(summary(fromZip).sort(), expected.slice().sort());
    assert.deepEqual(summary(fromFolder).sort(), expected.slice().sort());
    assert.deepEqual(fromFolder.notes, [READ, SKIPPED]);
    const byPosition = (r: { items: ImportItem[] }) =>
      Object.fromEntries(r.items.map((i) => ["data" in i ? i.position : "", "data" in i ? i.data : null]));
    assert.deepEqual(byPosition(fromZip), byPosition(fromFolder));

    const visit = byPosition(fromZip)["Chrome/BrowserHistory.json item 2"];
    assert.deepEqual(
      { ...visit, visit_id: undefined },
      {
        visit_id: undefined,
        title: "Page 1",
        url: "https://www.example.org/page/1",
        domain: "www.example.org",
        visited_at: "2024-01-01T00:00:01.000Z",
        page_transition: "LINK",
        client_id: "abc123==",
        favicon_url: "https://www.example.org/favicon.ico",
      },
    );
    const search = byPosition(fromZip)["My Activity/Search/MyActivity.json item 1"];
    assert.deepEqual(
      { ...search, activity_id: undefined },
      {
        activity_id: undefined,
        product: "Search",
        header: "Search",
        title: "Searched for item 0",
        title_url: "https://www.example.com/search/0",
        domain: "www.example.com",
        action: null,
        time: "2024-01-01T00:00:00.000Z",
        products: ["Search"],
        subtitles: [{ name: "Channel", url: "https://www.example.com/channel" }],
        details: null,
        location_infos: [{ name: "At this general area", source: "From your IP address" }],
        activity_controls: ["Search history"],
        description: null,
      },
    );
  }),
);

test(
  "a malformed activity item is rejected with its file and index; the summary lists skipped parts; re-import is unchanged",
  withDir(async (dir) => {
    const files = takeoutFiles();
    const items = activityItems("YouTube", 2) as unknown[];
    items.splice(1, 0, { header: "YouTube", title: "no time" }, "not an object");
    files["Takeout/My Activity/YouTube/MyActivity.json"] = JSON.stringify(items);
    const zip = join(dir, "takeout.zip");
    writeFileSync(zip, buildStoredZip(files));
    const app = await openOwnerApp();
    try {
      const first = await importFile(app.api, { kind: "takeout", path: zip });
      assert.equal(first.connectionLabel, "Google Takeout");
      assert.deepEqual([first.read, first.added, first.rejected], [9, 9, 2]);
      assert.deepEqual(first.rejections, [
        { position: "My Activity/YouTube/MyActivity.json item 2", reason: "activity item has no valid time" },
        { position: "My Activity/YouTube/MyActivity.json item 3", reason: "an item must be a JSON object" },
      ]);
      assert.deepEqual(first.perStream.activity?.added, 5);
      const again = await importFile(app.api, { kind: "takeout", path: zip });
      assert.deepEqual([again.added, again.updated, again.unchanged, again.rejected], [0, 0, 9, 2]);
      const text = formatSummary(again, zip);
      assert.ok(text.includes(`  ${SKIPPED}\n`), text);
    } finally {
      await app.close();
    }
  }),
);

test(
  "a zip with neither My Activity JSON nor Chrome history is refused, naming what it holds",
  withDir(async (dir) => {
    const zip = join(dir, "takeout.zip");
    writeFileSync(zip, buildStoredZip({ "Takeout/Drive/a.txt": "x" }));
    await assert.rejects(
      openTakeoutSource(zip),
      /^PdppError: no My Activity JSON or Chrome history in .*takeout\.zip \(found: Drive \(1 file\)\)/,
    );
  }),
);
