// An in-process RS over a real SQLite store with an owner token: what importer tests write into.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken, newToken } from "../../src/core/ids.js";
import type { OwnerApi } from "../../src/importers/owner-sink.js";
import { createApp } from "../../src/rs/app.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import type { TestBackend } from "../helpers/backends.js";

export interface OwnerApp {
  api: OwnerApi;
  store: Store;
  dir: string;
  close(): Promise<void>;
}

/** Open (or reopen, when `path` is given) a SQLite store and an app over it. */
export async function openOwnerApp(options: { path?: string; ownerToken?: string } = {}): Promise<OwnerApp> {
  const dir = options.path ? "" : mkdtempSync(join(tmpdir(), "pdpp-import-"));
  const store = await openSqliteStore({ path: options.path ?? join(dir, "pdpp.db") });
  const ownerToken = options.ownerToken ?? newToken("owner");
  await store.putOwnerToken(hashToken(ownerToken));
  const app = createApp({ store });
  return {
    api: { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken },
    store,
    dir,
    async close() {
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same owner app over any test backend's store (SQLite, or Postgres when configured). */
export async function openOwnerAppOn(backend: TestBackend): Promise<OwnerApp> {
  const opened = await backend.open();
  const ownerToken = newToken("owner");
  await opened.store.putOwnerToken(hashToken(ownerToken));
  const app = createApp({ store: opened.store });
  const dir = mkdtempSync(join(tmpdir(), "pdpp-import-home-"));
  return {
    api: { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken },
    store: opened.store,
    dir,
    async close() {
      await opened.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
