// The search benchmark's datasets, generated once and reused: a SQLite file under bench/data and
// a Postgres schema per record count (generation takes minutes on a loaded 2-core machine).
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { generateDataset } from "./dataset.js";

export interface BenchStore {
  store: Store;
  /** Where raw-SQL floors run: the SQLite file, or the Postgres url and schema. */
  sqlitePath?: string;
  pg?: { url: string; schema: string };
}

const progress = (label: string) => (n: number) => {
  if (n % 50_000 < 2000) console.error(`  ${label}: ${n.toLocaleString()} records written`);
};

/** Text bodies of the search dataset are cut to this many characters ("short mails"). */
export const BODY_CHARS = 600;

/**
 * The store the generator writes through: text bodies cut to BODY_CHARS. Full-size bodies (1–40 KB)
 * make 1M records ~7.5 GB of text, hours of ingest on this machine; search cost is set by the
 * number of matches (posting-list lengths), which short mails keep.
 */
function shortBodies(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== "applyBatch") return Reflect.get(target, prop, receiver);
      const apply: Store["applyBatch"] = (connectionId, stream, ops) =>
        target.applyBatch(
          connectionId,
          stream,
          ops.map((op) => {
            const data = { ...op.data };
            for (const key of ["body", "text"]) {
              if (typeof data[key] === "string") data[key] = (data[key] as string).slice(0, BODY_CHARS);
            }
            return { ...op, data };
          }),
        );
      return apply;
    },
  });
}

export function pgUrl(): string {
  return (
    process.env.PDPP_BENCH_PG_URL ?? process.env.PDPP_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  );
}

/** The SQLite dataset of `records` records (generated into a temporary file, then renamed). */
export async function sqliteDataset(records: number, seed: number): Promise<BenchStore> {
  const dir = join(process.cwd(), "bench", "data");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `search-sqlite-${records}-${seed}-b${BODY_CHARS}.db`);
  if (!existsSync(path)) {
    const tmp = `${path}.partial`;
    rmSync(tmp, { force: true });
    const store = await openSqliteStore({ path: tmp });
    const t0 = Date.now();
    await generateDataset(shortBodies(store), {
      records,
      seed,
      hugeFieldsMb: [],
      onProgress: progress("sqlite"),
    });
    await store.close();
    process.stderr.write(`\n  sqlite: generated in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    for (const suffix of ["-wal", "-shm"]) rmSync(tmp + suffix, { force: true });
    renameSync(tmp, path);
  }
  return { store: await openSqliteStore({ path }), sqlitePath: path };
}

/** The Postgres dataset of `records` records in its own schema (kept between runs). */
export async function postgresDataset(records: number, seed: number): Promise<BenchStore> {
  const url = pgUrl();
  const schema = `pdpp_bench_search_${records}_${seed}_b${BODY_CHARS}`;
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    const done = await client.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'bench_done'",
      [schema],
    );
    if (done.rowCount === 0) {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      const store = await openPostgresStore({ url, schema });
      const t0 = Date.now();
      await generateDataset(shortBodies(store), {
        records,
        seed,
        hugeFieldsMb: [],
        onProgress: progress("postgres"),
      });
      await store.close();
      await client.query(`CREATE TABLE ${schema}.bench_done (at timestamptz DEFAULT now())`);
      process.stderr.write(`\n  postgres: generated in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    await client.end();
  }
  return { store: await openPostgresStore({ url, schema }), pg: { url, schema } };
}
