// Open the store of a pdpp home: SQLite (<home>/pdpp.db, the default) or Postgres, chosen by the
// explicit option, then $PDPP_DATABASE_URL, then the home's config.json.
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { chooseDatabase, redactUrl } from "../config/config-file.js";
import { homePaths } from "../config/home.js";
import { isPdppError, PdppError } from "../core/errors.js";
import { openPostgresStore } from "./postgres/postgres-store.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

export interface OpenedHomeStore {
  store: Store;
  /** "sqlite" or the Postgres URL in use (callers redact it before printing). */
  database: string;
  close(): Promise<void>;
}

/**
 * A Postgres URL may name its schema as `?schema=<name>` (several pdpp homes in one database);
 * the parameter is pdpp's, so it is taken off before the URL reaches the driver.
 */
export function postgresTarget(database: string): { url: string; schema?: string } {
  const url = new URL(database);
  const schema = url.searchParams.get("schema");
  if (!schema) return { url: database };
  url.searchParams.delete("schema");
  return { url: url.toString(), schema };
}

export async function openStoreAt(
  home: string,
  options: { databaseUrl?: string } = {},
): Promise<OpenedHomeStore> {
  const database = chooseDatabase(home, { flag: options.databaseUrl });
  let store: Store;
  if (database === "sqlite") {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const path = homePaths(home).sqlite;
    // Created owner-only before SQLite opens it (an empty file is a new database); SQLite gives the
    // -wal and -shm files the database file's mode.
    if (!existsSync(path)) closeSync(openSync(path, "wx", 0o600));
    store = await openSqliteStore({ path });
  } else {
    store = await openPostgresStore(postgresTarget(database)).catch((error: unknown) => {
      throw postgresOpenError(database, error);
    });
  }
  let closed = false;
  return {
    store,
    database,
    async close() {
      if (closed) return;
      closed = true;
      await store.close();
    },
  };
}

/** A driver error on open as one line that says which database and where it was configured. */
function postgresOpenError(database: string, error: unknown): unknown {
  if (isPdppError(error)) return error;
  const message = (error as Error | undefined)?.message ?? String(error);
  let where = redactUrl(database);
  try {
    const url = new URL(database);
    where = `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    // Not a URL the WHATWG parser reads; the redacted text names it well enough.
  }
  return new PdppError(
    "invalid_request",
    `cannot open Postgres at ${where}: ${message} (the URL comes from --database, $PDPP_DATABASE_URL or config.json).`,
  );
}
