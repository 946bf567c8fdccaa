// Open the store of a pdpp home: SQLite (<home>/pdpp.db, the default) or Postgres, chosen by the
// explicit option, then $PDPP_DATABASE_URL, then the home's config.json.
import { mkdirSync } from "node:fs";
import { chooseDatabase } from "../config/config-file.js";
import { homePaths } from "../config/home.js";
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
    mkdirSync(home, { recursive: true });
    store = await openSqliteStore({ path: homePaths(home).sqlite });
  } else {
    store = await openPostgresStore(postgresTarget(database));
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
