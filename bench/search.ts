// `npm run bench -- --search`: the search rows of issue 10 on a reused dataset (bench/search-data.ts),
// each beside a raw-SQL floor measured in the same run on the same database, with the ratio, and
// (Postgres) the round trips one search takes. Flags shared with bench/run.ts: --records --backend --runs --seed.
import Database from "better-sqlite3";
import pg from "pg";
import { parseSearchQuery } from "../src/core/search-query.js";
import { createApp } from "../src/rs/app.js";
import { taggedAllQuery } from "../src/store/postgres/search-sql.js";
import { matchAllExpr } from "../src/store/sqlite/search-text.js";
import type { Store } from "../src/store/store.js";
import { BENCH_MANIFESTS, grantEverything } from "./dataset.js";
import { type BenchRow, measure, printRow } from "./measure.js";
import { type BenchStore, postgresDataset, sqliteDataset } from "./search-data.js";

const RARE = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
const COMMON = ["invoice", "meeting project", "budget travel hotel", "report", "tax refund", "server"];

/** Floors: raw SQL answering the same question (summed over every searched stream). */
export interface Floors {
  rare(q: string): Promise<unknown>;
  newest(q: string): Promise<unknown>;
  close(): Promise<void>;
}

export function sqliteFloors(path: string): Floors {
  const db = new Database(path, { readonly: true });
  const tables = db.prepare("SELECT name FROM search_tables").pluck().all() as string[];
  const rare = new Map(
    tables.map((t) => [
      t,
      db.prepare(`SELECT rowid, bm25(${t}) FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 10`),
    ]),
  );
  const newest = new Map(
    tables.map((t) => [
      t,
      db.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 10`),
    ]),
  );
  const run = (stmts: Map<string, Database.Statement>, q: string) => {
    const expr = matchAllExpr(parseSearchQuery(q), null);
    for (const s of stmts.values()) s.all(expr);
  };
  return {
    rare: async (q) => run(rare, q),
    newest: async (q) => run(newest, q),
    close: async () => {
      db.close();
    },
  };
}

export function postgresFloors(at: { url: string; schema: string }): Floors {
  const pool = new pg.Pool({ connectionString: at.url, max: 1, options: `-c search_path=${at.schema}` });
  const streams = BENCH_MANIFESTS.flatMap((m) =>
    m.streams.map((s) => ({ name: s.name, fields: s.query?.search ?? [] })),
  );
  return {
    // Exact ts_rank_cd top-10 over the per-field vectors (the pre-change ranking).
    rare: (q) =>
      pool.query(
        `SELECT rid, sum(ts_rank_cd(tsv, $1::tsquery)) AS s FROM search_docs WHERE tsv @@ $1::tsquery
         GROUP BY rid ORDER BY s DESC LIMIT 10`,
        [
          parseSearchQuery(q)
            .map((t) => (t.kind === "word" ? `'${t.text}'` : ""))
            .join(" & "),
        ],
      ),
    // The newest 10 matches per stream from the lexeme rows.
    newest: async (q) => {
      for (const s of streams) {
        await pool.query(
          "SELECT rid FROM search_lex WHERE stream = $1 AND tsv @@ $2::tsquery ORDER BY rid DESC LIMIT 10",
          [s.name, taggedAllQuery(parseSearchQuery(q), s.fields)],
        );
      }
    },
    close: () => pool.end(),
  };
}

/** Round trips of one Postgres search: queries sent on the store's pool while it runs. */
async function roundTrips(store: Store, run: () => Promise<unknown>): Promise<number> {
  const pool = (store as unknown as { pool: pg.Pool }).pool;
  const original = pool.query.bind(pool);
  let count = 0;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    count++;
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  try {
    await run();
  } finally {
    (pool as unknown as { query: unknown }).query = original;
  }
  return count;
}

async function benchOne(
  backend: string,
  opts: { records: number; runs: number; seed: number },
): Promise<BenchRow[]> {
  const data: BenchStore =
    backend === "sqlite"
      ? await sqliteDataset(opts.records, opts.seed)
      : await postgresDataset(opts.records, opts.seed);
  const floors = data.sqlitePath
    ? sqliteFloors(data.sqlitePath)
    : postgresFloors(data.pg as { url: string; schema: string });
  const rows: BenchRow[] = [];
  try {
    const token = await grantEverything(data.store, "bench-search");
    const app = createApp({ store: data.store, publicUrl: "http://127.0.0.1:7662" });
    let recall = "";
    const get = async (q: string) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662/v1/search?q=${encodeURIComponent(q)}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      if (response.status !== 200)
        throw new Error(`search ${q} → ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { meta: { recall: unknown } };
      recall = JSON.stringify(body.meta.recall);
      return body;
    };
    const label = `${backend} ${(opts.records / 1000).toLocaleString()}k`;
    const scenarios = [
      {
        scenario: "search selective (rare term)",
        target: backend === "sqlite" ? "p50 ≤ 5 ms" : "p50 ≤ 10 ms",
        terms: RARE,
        floor: floors.rare,
        floorName: backend === "sqlite" ? "exact bm25 top-10" : "exact ts_rank_cd top-10",
      },
      {
        scenario: "search common 1–3 terms",
        target: backend === "sqlite" ? "p95 ≤ 50 ms" : "p95 ≤ 100 ms",
        terms: COMMON,
        floor: floors.newest,
        floorName: "newest 10 matches",
      },
    ];
    for (const s of scenarios) {
      const m = await measure((i) => get(s.terms[i % s.terms.length]), { runs: opts.runs });
      const f = await measure((i) => s.floor(s.terms[i % s.terms.length]), { runs: opts.runs });
      const trips = data.pg ? await roundTrips(data.store, () => get(s.terms[0])) : undefined;
      const note =
        `floor (${s.floorName}) p50 ${f.p50.toFixed(2)} / p95 ${f.p95.toFixed(2)} ms; ratio p50 ${(m.p50 / f.p50).toFixed(1)}× p95 ${(m.p95 / f.p95).toFixed(1)}×` +
        (trips !== undefined ? `; ${trips} round trips` : "") +
        `; last recall ${recall}`;
      const row: BenchRow & Record<string, unknown> = {
        backend: label,
        scenario: s.scenario,
        p50_ms: m.p50,
        p95_ms: m.p95,
        runs: opts.runs,
        target: s.target,
        note,
        floor_p50_ms: f.p50,
        floor_p95_ms: f.p95,
        ratio_p50: m.p50 / f.p50,
        ratio_p95: m.p95 / f.p95,
        round_trips: trips,
      };
      printRow(row);
      rows.push(row);
    }
  } finally {
    await floors.close();
    await data.store.close();
  }
  return rows;
}

export async function runSearchBench(opts: {
  backends: string[];
  records: number;
  runs: number;
  seed: number;
}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const backend of opts.backends) rows.push(...(await benchOne(backend, opts)));
  return rows;
}
