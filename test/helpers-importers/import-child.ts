// Child process for the crash tests: imports an mbox (or the format named by a 5th argument, with a state
// folder as 6th) into a SQLite store through the in-process app and prints one line per committed batch,
// so the parent can kill -9 it mid-import.
import { hashToken } from "../../src/core/ids.js";
import { importFile } from "../../src/importers/import-file.js";
import { createApp } from "../../src/rs/app.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";

const [dbPath, mboxPath, ownerToken, batchSize, kind, stateDir] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
  string | undefined,
];
const store = await openSqliteStore({ path: dbPath });
await store.putOwnerToken(hashToken(ownerToken));
const app = createApp({ store });
const result = await importFile(
  { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken },
  {
    kind: kind ?? "mbox",
    path: mboxPath,
    connectionLabel: kind ? undefined : "Crash mail",
    stateDir,
    batchSize: Number(batchSize),
    onProgress: (p) => process.stdout.write(`batch ${p.batches} added ${p.added}\n`),
  },
);
process.stdout.write(`done ${result.added}\n`);
await store.close();
