// An in-process RS over a real store with an owner token: what importer tests write into (SQLite by
// default; any test backend), and reading back over the RS as an agent would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken, newToken } from "../../src/core/ids.js";
import type { OwnerApi } from "../../src/importers/owner-sink.js";
import { createApp } from "../../src/rs/app.js";
import { openSqliteStore, preparedIngestOf } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import type { TestBackend } from "../helpers/backends.js";

export interface OwnerApp {
  api: OwnerApi;
  store: Store;
  dir: string;
  /** GET an RS path with the owner token; the parsed JSON answer. */
  get(path: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Open (or reopen, when `path` is given) a SQLite store, or a fresh store of `backend`, and an app
 * over it. `direct`: batches go straight to the store as `pdpp import` sends them in-process
 * (applyBatch, and prepared ops on SQLite) instead of as NDJSON requests.
 */
export async function openOwnerApp(
  options: { path?: string; ownerToken?: string; backend?: TestBackend; direct?: boolean } = {},
): Promise<OwnerApp> {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-import-"));
  const opened = options.backend
    ? await options.backend.open()
    : { store: await openSqliteStore({ path: options.path ?? join(dir, "pdpp.db") }), cleanup: null };
  const store = opened.store;
  const ownerToken = options.ownerToken ?? newToken("owner");
  await store.putOwnerToken(hashToken(ownerToken));
  const app = createApp({ store });
  const api: OwnerApi = { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken };
  if (options.direct) {
    api.ingest = (id, stream, ops) => store.applyBatch(id, stream, ops);
    api.ingestPrepared = preparedIngestOf(store);
  }
  return {
    api,
    store,
    dir,
    async get(path) {
      const response = await app.fetch(
        new Request(new URL(path, api.baseUrl), { headers: { authorization: `Bearer ${ownerToken}` } }),
      );
      return (await response.json()) as Record<string, unknown>;
    },
    async close() {
      if (opened.cleanup) await opened.cleanup();
      else await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same owner app over any test backend's store (SQLite, or Postgres when configured). */
export function openOwnerAppOn(backend: TestBackend): Promise<OwnerApp> {
  return openOwnerApp({ backend });
}
