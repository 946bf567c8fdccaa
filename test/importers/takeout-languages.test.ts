// Google Takeout as accounts in other languages and YouTube export it: My Activity found by its shape in
// `Meine Aktivitäten/…`, YouTube watch and search history read, the same watch in two places stored once,
// Photos' sidecars left alone, hosts in Unicode; imported into a real store and read back over MCP.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { detectFormat } from "../../src/importers/detect.js";
import { importFile } from "../../src/importers/import-file.js";
import { TAKEOUT_MANIFEST } from "../../src/importers/takeout-manifest.js";
import { agentView } from "../helpers-importers/agent-view.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { germanTakeout, youtubeTakeout } from "../helpers-importers/takeout-fixtures.js";
import { withDir } from "../helpers-importers/temp-dir.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

type Page = { data: { data: Record<string, unknown> }[] };

test(
  "a German Takeout (zip and folder): activity and YouTube history by their shape, Chrome history, Unicode hosts",
  withDir("pdpp-takeout-lang-", async (dir) => {
    const zip = join(dir, "takeout-20240401T000000Z-001.zip");
    writeFileSync(zip, buildStoredZip(germanTakeout()));
    for (const [name, content] of Object.entries(germanTakeout())) {
      mkdirSync(dirname(join(dir, "folder", name)), { recursive: true });
      writeFileSync(join(dir, "folder", name), content);
    }
    assert.equal((await detectFormat(zip)).format.name, "takeout");
    assert.equal((await detectFormat(join(dir, "folder"))).format.name, "takeout");
    const app = await openOwnerApp();
    try {
      const result = await importFile(app.api, { kind: "takeout", path: zip });
      assert.deepEqual([result.read, result.added, result.rejected], [6, 6, 0]);
      assert.deepEqual(result.notes, [
        "read: Chrome (1 file), Meine Aktivitäten/Suche (1 file), YouTube und YouTube Music/Verlauf (2 files)",
        "skipped parts of the Takeout (no importer for them): archive_browser.html (1 file), Google Fotos (2 files), Meine Aktivitäten/Maps (HTML: export it as JSON) (1 file), YouTube und YouTube Music/Abos (1 file)",
      ]);
      const fromFolder = await importFile(app.api, { kind: "takeout", path: join(dir, "folder") });
      assert.deepEqual([fromFolder.added, fromFolder.unchanged], [0, 6]);

      const agent = await agentView(app, [TAKEOUT_MANIFEST]);
      const activity = (await agent.call("query_records", { stream: "activity", sort: "time" })).data as Page;
      assert.deepEqual(
        activity.data.map((r) => [r.data.product, r.data.action, r.data.domain, r.data.title]),
        [
          ["Suche", "searched", "www.google.com", "Gesucht nach wetter münchen"],
          ["Suche", null, "www.google.com", "https://straße.example/ besucht"],
          ["YouTube", "searched", "www.youtube.com", "Gesucht nach sauerteig"],
          ["YouTube", "watched", "www.youtube.com", "Brotbacken für Anfänger angesehen"],
          ["YouTube", "watched", "www.youtube.com", "Alpen im Winter angesehen"],
        ],
      );
      const watched = await agent.call("aggregate", {
        stream: "activity",
        metric: "count",
        filter: [{ field: "action", op: "eq", value: "watched" }],
      });
      assert.equal((watched.data as { value: number }).value, 2);
      const visits = (await agent.call("query_records", { stream: "browser_history" })).data as Page;
      assert.deepEqual(
        visits.data.map((r) => [r.data.domain, r.data.url]),
        [["straße.example", "https://xn--strae-oqa.example/weg"]],
      );
    } finally {
      await app.close();
    }
  }),
);

test(
  "YouTube watch and search history are read; a watch also in My Activity is stored once",
  withDir("pdpp-takeout-lang-", async (dir) => {
    const zip = join(dir, "takeout.zip");
    writeFileSync(zip, buildStoredZip(youtubeTakeout()));
    assert.equal((await detectFormat(zip)).format.name, "takeout");
    const app = await openOwnerApp();
    try {
      const result = await importFile(app.api, { kind: "takeout", path: zip });
      assert.deepEqual([result.read, result.added, result.unchanged], [3, 2, 1]);
      const agent = await agentView(app, [TAKEOUT_MANIFEST]);
      const page = (await agent.call("query_records", { stream: "activity", sort: "time" })).data as Page;
      assert.deepEqual(
        page.data.map((r) => [r.data.product, r.data.action, r.data.title]),
        [
          ["YouTube", "searched", "Searched for sourdough"],
          ["YouTube", "watched", "Watched Sourdough basics"],
        ],
      );
    } finally {
      await app.close();
    }
  }),
);

test(
  "an item with one odd array element keeps the item (the element goes), a non-string title too",
  withDir("pdpp-takeout-lang-", async (dir) => {
    const zip = join(dir, "takeout.zip");
    const items = [
      {
        header: "YouTube",
        title: "Watched Knots",
        titleUrl: "https://www.youtube.com/watch?v=k1",
        subtitles: ["not an object", { name: "Sailing", url: "https://www.youtube.com/channel/UC9" }],
        time: "2024-05-01T10:00:00.000Z",
        products: ["YouTube", 7],
        activityControls: [null, "YouTube watch history"],
      },
      { header: "YouTube", title: 42, time: "2024-05-01T11:00:00.000Z", products: ["YouTube"] },
    ];
    writeFileSync(
      zip,
      buildStoredZip({
        "Takeout/YouTube and YouTube Music/history/watch-history.json": JSON.stringify(items),
      }),
    );
    const app = await openOwnerApp();
    try {
      const result = await importFile(app.api, { kind: "takeout", path: zip });
      assert.deepEqual([result.read, result.added, result.rejected], [2, 2, 0]);
      const agent = await agentView(app, [TAKEOUT_MANIFEST]);
      const page = (await agent.call("query_records", { stream: "activity", sort: "time" })).data as Page;
      assert.deepEqual(
        page.data.map((r) => [
          r.data.title ?? null,
          r.data.products,
          r.data.subtitles ?? null,
          r.data.activity_controls ?? null,
        ]),
        [
          [
            "Watched Knots",
            ["YouTube"],
            [{ name: "Sailing", url: "https://www.youtube.com/channel/UC9" }],
            ["YouTube watch history"],
          ],
          [null, ["YouTube"], null, null],
        ],
      );
    } finally {
      await app.close();
    }
  }),
);
