// Runs the store contract suite against the SQLite store (a fresh temp-dir database per suite).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { TestBackend } from "../helpers/backends.js";
import { runStoreContract } from "./contract.js";

// Built here rather than taken from testBackends() so this file never loads the Postgres driver.
const sqlite: TestBackend = {
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-store-"));
    const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
    return {
      store,
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

runStoreContract(sqlite);
