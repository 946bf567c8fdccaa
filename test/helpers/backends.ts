// The storage backends every behavioural suite runs against: SQLite always, Postgres when
// PDPP_TEST_PG_URL is set (and under CI=true an unreachable Postgres fails the run, never skips).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "./pg.js";

export interface OpenedStore {
  store: Store;
  cleanup(): Promise<void>;
}

export interface TestBackend {
  name: "sqlite" | "postgres";
  open(): Promise<OpenedStore>;
}

export const sqliteBackend: TestBackend = {
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-test-"));
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

const postgresBackend: TestBackend = {
  name: "postgres",
  async open() {
    const url = pgTestUrl();
    if (!url) throw new Error("PDPP_TEST_PG_URL is not set");
    const schema = newTestSchemaName();
    const store = await openPostgresStore({ url, schema });
    return {
      store,
      async cleanup() {
        await store.close();
        await dropTestSchema(url, schema);
      },
    };
  },
};

/**
 * SQLite, plus Postgres when configured. Without PDPP_TEST_PG_URL, the Postgres half of the calling
 * file is registered as one skipped test, so the runner's summary counts it instead of it silently
 * vanishing (under CI=true a missing URL throws instead; see pg.ts).
 */
export function testBackends(): TestBackend[] {
  if (pgTestUrl()) return [sqliteBackend, postgresBackend];
  test(`postgres half of ${callerFile()}`, { skip: "PDPP_TEST_PG_URL is not set" }, () => {});
  return [sqliteBackend];
}

/** The test file that called testBackends (for the skipped test's name). */
function callerFile(): string {
  const stack = new Error().stack?.split("\n") ?? [];
  const frame = stack.find((line) => /\.test\.ts/.test(line)) ?? "";
  return frame.match(/([^/\\(]+\.test\.ts)/)?.[1] ?? "this file";
}
