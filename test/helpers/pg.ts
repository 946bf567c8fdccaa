// Postgres test plumbing: which server to use, a unique schema per run, and dropping it afterwards.
import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * The Postgres URL tests should use, or null to skip Postgres. Under CI=true a missing URL is an
 * error: CI must exercise Postgres, never silently skip it.
 */
export function pgTestUrl(): string | null {
  const url = process.env.PDPP_TEST_PG_URL;
  if (url && url.length > 0) return url;
  if (process.env.CI === "true") {
    throw new Error("CI=true but PDPP_TEST_PG_URL is not set: Postgres tests must run in CI");
  }
  return null;
}

/** A schema name unique to this process and call, safe to splice into SQL as an identifier. */
export function newTestSchemaName(): string {
  return `pdpp_test_${process.pid}_${randomBytes(6).toString("hex")}`;
}

/** Drop a test schema and everything in it; a missing schema is not an error. */
export async function dropTestSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`refusing to drop odd schema name ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
