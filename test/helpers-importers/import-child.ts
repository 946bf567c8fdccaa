// Child process for the crash tests: imports a file (an mbox unless a format is named; flags as JSON,
// a state folder for folder importers) into a SQLite store through the in-process app (batches straight to the store, as `pdpp import` does) and prints one line
// per committed batch, so the parent can kill -9 it mid-import.
import { hashToken } from "../../src/core/ids.js";
import { importFile } from "../../src/importers/import-file.js";
import { createApp } from "../../src/rs/app.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";

const [dbPath, mboxPath, ownerToken, batchSize, kind = "mbox", flagsJson = "{}", stateDir] =
  process.argv.slice(2) as [string, string, string, string, string?, string?, string?];
const store = await openSqliteStore({ path: dbPath });
await store.putOwnerToken(hashToken(ownerToken));
const app = createApp({ store });
const result = await importFile(
  {
    fetch: async (r) => app.fetch(r),
    baseUrl: "http://127.0.0.1",
    ownerToken,
    ingest: (id, stream, ops) => store.applyBatch(id, stream, ops),
  },
  {
    kind,
    path: mboxPath,
    flags: JSON.parse(flagsJson) as Record<string, unknown>,
    connectionLabel: "Crash mail",
    stateDir,
    batchSize: Number(batchSize),
    onProgress: (p) => process.stdout.write(`batch ${p.batches} added ${p.added}\n`),
  },
);
process.stdout.write(`done ${result.added}\n`);
await store.close();
