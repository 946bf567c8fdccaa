// What every CLI command shares: the resolved home and an in-process RS app over its store,
// authenticated with the home's owner token (the same HTTP contracts, without a socket).
import type { Command } from "commander";
import { homePaths, resolveHome } from "../config/home.js";
import { readOwnerToken } from "../config/owner-token.js";
import { PdppError } from "../core/errors.js";
import { hashToken } from "../core/ids.js";
import type { OwnerApi } from "../importers/owner-sink.js";
import { createApp } from "../rs/app.js";
import { openStoreAt } from "../store/open.js";
import { preparedIngestOf } from "../store/sqlite/sqlite-store.js";

export interface OpenedApp {
  fetch: (r: Request) => Promise<Response>;
  /** Base for request URLs; a loopback origin so the RS's Host check accepts them. */
  baseUrl: string;
  ownerToken: string;
  ingest?: OwnerApi["ingest"];
  ingestPrepared?: OwnerApi["ingestPrepared"];
  close(): Promise<void>;
}

export interface CliContext {
  /** The absolute home directory (--home, $PDPP_HOME, ./.pdpp). */
  home: string;
  /** --database when given (otherwise $PDPP_DATABASE_URL or the home's config.json decide). */
  databaseUrl?: string;
  openApp(): Promise<OpenedApp>;
}

export const IN_PROCESS_BASE_URL = "http://127.0.0.1";

/** A context whose home and database are read from the program's global options when used. */
export function createCliContext(program: Command): CliContext {
  return {
    get home() {
      return resolveHome(program.opts<{ home?: string }>().home);
    },
    get databaseUrl() {
      return program.opts<{ database?: string }>().database;
    },
    openApp() {
      return openHomeApp(this.home, { databaseUrl: this.databaseUrl });
    },
  };
}

/** Open the store of an initialised home and an RS app over it, with the owner token. */
export async function openHomeApp(home: string, options: { databaseUrl?: string } = {}): Promise<OpenedApp> {
  const ownerToken = readOwnerToken(home);
  if (!ownerToken) {
    throw new PdppError(
      "invalid_request",
      `no pdpp home at ${home} (missing ${homePaths(home).ownerToken}); run \`pdpp init\` first or pass --home.`,
    );
  }
  const opened = await openStoreAt(home, options);
  // Re-registering the hash keeps the token file authoritative even for a recreated database.
  await opened.store.putOwnerToken(hashToken(ownerToken));
  const app = createApp({ store: opened.store, bindHost: "127.0.0.1" });
  const store = opened.store;
  return {
    fetch: async (request) => app.fetch(request),
    baseUrl: IN_PROCESS_BASE_URL,
    ownerToken,
    // Imports in this process write batches to the store directly (owner-sink.ts), not as NDJSON.
    ingest: (connectionId, stream, ops) => store.applyBatch(connectionId, stream, ops),
    // …and on SQLite, large generic imports hand over records prepared in a worker thread.
    ingestPrepared: preparedIngestOf(store),
    close: () => opened.close(),
  };
}
