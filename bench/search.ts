// `npm run bench -- --search`: the search, page and count rows of issue 10 on a reused dataset
// (bench/search-data.ts; generating 1M records once takes minutes), each beside a raw-SQL floor
// measured in the same run on the same database, with the ratio, the CPU per call, and (Postgres)
// the round trips one search takes. Flags shared with bench/run.ts: --records --backend --runs --seed.
import Database from "better-sqlite3";
import pg from "pg";
import { parseSearchQuery, positiveClauses } from "../src/core/search-query.js";
import { createApp } from "../src/rs/app.js";
import { SESSION_SETTINGS } from "../src/store/postgres/pool.js";
import { clauseQuery, taggedClause } from "../src/store/postgres/search-sql.js";
import { clauseExpr } from "../src/store/sqlite/search-text.js";
import type { Store } from "../src/store/store.js";
import { BENCH_MANIFESTS, grantEverything } from "./dataset.js";
import { postgresReadFloors, type ReadFloors, sqliteReadFloors } from "./floors.js";
import { type BenchRow, measure, printRow } from "./measure.js";
import { type BenchStore, postgresDataset, sqliteDataset } from "./search-data.js";

const RARE = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
const COMMON = ["invoice", "meeting project", "budget travel hotel", "report", "tax refund", "server"];
/** Questions as agents pass them on (5–20 words: vocabulary words, stopwords, words no record holds). */
export const NATURAL = [
  "what did the plumber say about the invoice for the bathroom repair",
  "when is my next doctor appointment and did I pay the pharmacy receipt",
  "find the email about the quarterly review meeting with the project budget",
  "which hotel did we book for the holiday flight to zanzibar",
  "messages about the server database migration backup and the release deploy",
  "tax refund pension savings and the salary bonus transfer from last year",
  "who sent the birthday party invitation to the school teacher",
  "the mortgage insurance renewal contract",
];

/** The query's words OR-ed, as FTS5 text: what exact bm25() ranks over every match. */
function ftsAnyExpr(q: string): string {
  return positiveClauses(parseSearchQuery(q))
    .map((c) => clauseExpr(c.match))
    .join(" OR ");
}

/** Floors: raw SQL answering the same question (summed over every searched stream). */
export interface Floors {
  rare(q: string): Promise<unknown>;
  newest(q: string): Promise<unknown>;
  /** The newest 20,000 matches of any word counted, per searched table. SQLite only. */
  window?(q: string): Promise<unknown>;
  /** The newest 10 matches in one connection of the mail stream (a join on records). SQLite only. */
  newestIn?(q: string, connectionId: string): Promise<unknown>;
  close(): Promise<void>;
}

export function sqliteFloors(path: string): Floors {
  const db = new Database(path, { readonly: true });
  const tables = db.prepare("SELECT name FROM search_tables").pluck().all() as string[];
  const rare = new Map(
    tables.map((t) => [
      t,
      db.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 10`),
    ]),
  );
  const newest = new Map(
    tables.map((t) => [
      t,
      db.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 10`),
    ]),
  );
  const window = new Map(
    tables.map((t) => [
      t,
      db.prepare(
        `SELECT count(*) FROM (SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 20000)`,
      ),
    ]),
  );
  const mail = db
    .prepare("SELECT name FROM search_tables WHERE connector_key = 'mbox'")
    .pluck()
    .get() as string;
  const newestIn = db.prepare(
    `SELECT ${mail}.rowid FROM ${mail} JOIN records r ON r.id = ${mail}.rowid
     WHERE ${mail} MATCH ? AND r.connection_id = ? ORDER BY ${mail}.rowid DESC LIMIT 10`,
  );
  const run = (stmts: Map<string, Database.Statement>, q: string) => {
    const expr = ftsAnyExpr(q);
    for (const s of stmts.values()) s.all(expr);
  };
  return {
    rare: async (q) => run(rare, q),
    newest: async (q) => run(newest, q),
    window: async (q) => run(window, q),
    newestIn: async (q, connectionId) => newestIn.all(ftsAnyExpr(q), connectionId),
    close: async () => {
      db.close();
    },
  };
}

export function postgresFloors(at: { url: string; schema: string }): Floors {
  // The store's own session settings (jit off, cached-working-set costs), so the floor plans alike.
  const pool = new pg.Pool({
    connectionString: at.url,
    max: 1,
    options: [...SESSION_SETTINGS, `-c search_path=${at.schema}`].join(" "),
  });
  const streams = BENCH_MANIFESTS.flatMap((m) =>
    m.streams.map((s) => ({ name: s.name, fields: s.query?.search ?? [] })),
  );
  return {
    // Exact ts_rank_cd top-10 over the per-field vectors, every match of any word.
    rare: (q) =>
      pool.query(
        `SELECT rid, sum(ts_rank_cd(tsv, $1::tsquery)) AS s FROM search_docs WHERE tsv @@ $1::tsquery
         GROUP BY rid ORDER BY s DESC LIMIT 10`,
        [
          positiveClauses(parseSearchQuery(q))
            .map((c) => clauseQuery(c.match))
            .join(" | "),
        ],
      ),
    // The newest 10 matches of any word per stream from the lexeme rows.
    newest: async (q) => {
      for (const s of streams) {
        await pool.query(
          "SELECT rid FROM search_lex WHERE stream = $1 AND tsv @@ $2::tsquery ORDER BY rid DESC LIMIT 10",
          [
            s.name,
            positiveClauses(parseSearchQuery(q))
              .map((c) => taggedClause(c.match, s.fields))
              .join(" | "),
          ],
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
  opts: { records: number; runs: number; floorRuns?: number; seed: number },
): Promise<BenchRow[]> {
  const data: BenchStore =
    backend === "sqlite"
      ? await sqliteDataset(opts.records, opts.seed)
      : await postgresDataset(opts.records, opts.seed);
  const floors = data.sqlitePath
    ? sqliteFloors(data.sqlitePath)
    : postgresFloors(data.pg as { url: string; schema: string });
  const read: ReadFloors = data.sqlitePath
    ? sqliteReadFloors(data.sqlitePath)
    : postgresReadFloors(data.pg as { url: string; schema: string });
  const rows: BenchRow[] = [];
  try {
    const token = await grantEverything(data.store, "bench-search");
    const app = createApp({ store: data.store, publicUrl: "http://127.0.0.1:7662" });
    let recall = "";
    const get = async (q: string, suffix = "") => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662/v1/search?q=${encodeURIComponent(q)}${suffix}`, {
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
    const getPath = async (path: string) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      if (response.status !== 200) throw new Error(`${path} → ${response.status} ${await response.text()}`);
      return response.json();
    };
    const people = ["alice", "bob", "carol", "dave", "erin"].map((p) => `${p}@example.com`);
    const pagePath = (i: number) =>
      `/v1/streams/messages/records?limit=25&sort=-sent_at&filter[from]=${people[i % people.length]}`;
    const window = floors.window;
    const work = (await data.store.listConnections()).find(
      (c) => c.display_name === "Work mail",
    )?.connection_id;
    const scenarios: {
      scenario: string;
      target: string;
      run: (i: number) => Promise<unknown>;
      floor: (i: number) => Promise<unknown>;
      floorName: string;
      second?: { name: string; fn: (i: number) => Promise<unknown> };
      search?: boolean;
    }[] = [
      {
        scenario: "search selective (rare term)",
        target: backend === "sqlite" ? "p50 ≤ 5 ms" : "p50 ≤ 10 ms",
        run: (i) => get(RARE[i % RARE.length]),
        floor: (i) => floors.rare(RARE[i % RARE.length]),
        floorName:
          backend === "sqlite" ? "exact bm25() over every match" : "exact ts_rank_cd over every match",
        search: true,
      },
      {
        scenario: "search natural language 5–20 words",
        target: backend === "sqlite" ? "p50 ≤ 10 ms, p95 ≤ 50 ms" : "p95 ≤ 100 ms",
        run: (i) => get(NATURAL[i % NATURAL.length]),
        floor: (i) => floors.rare(NATURAL[i % NATURAL.length]),
        floorName:
          backend === "sqlite" ? "exact bm25() over every match" : "exact ts_rank_cd over every match",
        search: true,
      },
      {
        scenario: "search common 1–3 terms",
        target: backend === "sqlite" ? "p95 ≤ 20 ms" : "p95 ≤ 100 ms",
        run: (i) => get(COMMON[i % COMMON.length]),
        floor: (i) => floors.rare(COMMON[i % COMMON.length]),
        floorName:
          backend === "sqlite" ? "exact bm25() over every match" : "exact ts_rank_cd over every match",
        second: { name: "newest 10 matches", fn: (i) => floors.newest(COMMON[i % COMMON.length]) },
        search: true,
      },
      {
        // One of the two mail connections: the window is filtered through the records index.
        scenario: "search common 1–3 terms, one connection",
        target: backend === "sqlite" ? "p95 ≤ 50 ms" : "p95 ≤ 100 ms",
        run: (i) => get(COMMON[i % COMMON.length], `&connection_id=${work}`),
        floor: (i) =>
          floors.newestIn
            ? floors.newestIn(COMMON[i % COMMON.length], work as string)
            : floors.newest(COMMON[i % COMMON.length]),
        floorName: backend === "sqlite" ? "newest 10 mail matches of the connection" : "newest 10 matches",
        second: window && { name: "newest 20k counted", fn: (i) => window(COMMON[i % COMMON.length]) },
        search: true,
      },
      {
        scenario: "records page 25, filter + sort, previews 512",
        target: backend === "sqlite" ? "p50 ≤ 2 ms" : "p50 ≤ 4 ms",
        run: (i) => getPath(`${pagePath(i)}&preview_chars=512`),
        floor: (i) => read.page(people[i % people.length]),
        floorName: "rows + 512-char previews",
      },
      {
        scenario: "records page 25, filter + sort, full bodies",
        target: backend === "sqlite" ? "p50 ≤ 2 ms" : "p50 ≤ 4 ms",
        run: (i) => getPath(pagePath(i)),
        floor: (i) => read.page(people[i % people.length], true),
        floorName: "rows + full text",
      },
      {
        scenario: "aggregate count by month",
        target: "≤ 300 ms",
        run: () =>
          getPath(
            "/v1/streams/messages/aggregate?metric=count&group_by_time=sent_at&granularity=month&limit=100",
          ),
        floor: () => read.countByMonth(),
        floorName: "GROUP BY month",
      },
    ];
    for (const s of scenarios) {
      // CPU per call beside wall time: on a loaded 2-core machine wall time mostly measures the queue.
      const c0 = process.cpuUsage();
      const m = await measure(s.run, { runs: opts.runs });
      const c1 = process.cpuUsage(c0);
      // Exact-ranking floors take seconds a call at 1M (--floor-runs lowers their count only).
      const floorRuns = opts.floorRuns ?? opts.runs;
      const f = await measure(s.floor, { runs: floorRuns });
      const extra = s.second ? await measure(s.second.fn, { runs: floorRuns }) : undefined;
      const trips = data.pg && s.search ? await roundTrips(data.store, () => s.run(0)) : undefined;
      const cpu = (c1.user + c1.system) / 1000 / (opts.runs + 3);
      const note =
        `floor (${s.floorName}) p50 ${f.p50.toFixed(2)} / p95 ${f.p95.toFixed(2)} ms; ratio p50 ${(m.p50 / f.p50).toFixed(1)}× p95 ${(m.p95 / f.p95).toFixed(1)}×` +
        (extra && s.second
          ? `; floor (${s.second.name}) p50 ${extra.p50.toFixed(2)} / p95 ${extra.p95.toFixed(2)} ms, ratio p50 ${(m.p50 / extra.p50).toFixed(1)}× p95 ${(m.p95 / extra.p95).toFixed(1)}×`
          : "") +
        `; cpu ${cpu.toFixed(2)} ms/call` +
        (trips !== undefined ? `; ${trips} round trips` : "") +
        (s.search ? `; last recall ${recall}` : "");
      const row: BenchRow & Record<string, unknown> = {
        backend: label,
        scenario: s.scenario,
        p50_ms: m.p50,
        p95_ms: m.p95,
        runs: opts.runs,
        target: s.target,
        note,
        floor_runs: floorRuns,
        floor_p50_ms: f.p50,
        floor_p95_ms: f.p95,
        ratio_p50: m.p50 / f.p50,
        ratio_p95: m.p95 / f.p95,
        cpu_ms_per_call: cpu,
        window_floor_p50_ms: extra?.p50,
        window_floor_p95_ms: extra?.p95,
        round_trips: trips,
      };
      printRow(row);
      rows.push(row);
    }
  } finally {
    await floors.close();
    await read.close();
    await data.store.close();
  }
  return rows;
}

export async function runSearchBench(opts: {
  backends: string[];
  records: number;
  runs: number;
  /** Runs of each floor (default: runs). */
  floorRuns?: number;
  seed: number;
}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const backend of opts.backends) rows.push(...(await benchOne(backend, opts)));
  return rows;
}
