// Prints EXPLAIN (ANALYZE, BUFFERS) of the Postgres search's first statement (every positive
// clause's visible matches, search-candidates.ts clauseHitsSql) for one query on a
// bench dataset (bench/search-data.ts), every stream of the bench manifests in scope: a tool for
// reading plans, not a benchmark. Usage: tsx bench/pg-explain.ts --schema S --q "tax refund"
// [--repeat N] [--timing-off] [--summary]. Env: PG_WINDOW (rank window, default 250; the served
// default is 100), PG_NO_DF=1 (the counting plans, as before search_df), PG_EXTRA (session -c flags).
import { parseArgs } from "node:util";
import pg from "pg";
import type { StreamScope } from "../src/core/grant.js";
import { parseSearchQuery } from "../src/core/search-query.js";
import { enumerateLimit } from "../src/core/search-ranking.js";
import { SESSION_SETTINGS } from "../src/store/postgres/pool.js";
import {
  type ClausePlan,
  clauseHitsSql,
  clausePlan,
  matchBoundsSql,
} from "../src/store/postgres/search-candidates.js";
import { BENCH_MANIFESTS } from "./dataset.js";
import { pgUrl } from "./search-data.js";

const { values } = parseArgs({
  options: {
    schema: { type: "string" },
    q: { type: "string", default: "invoice" },
    stream: { type: "string" },
    limit: { type: "string", default: "10" },
    repeat: { type: "string", default: "1" },
    "timing-off": { type: "boolean", default: false },
    summary: { type: "boolean", default: false },
  },
});
const pool = new pg.Pool({
  connectionString: pgUrl(),
  max: 1,
  options: [...SESSION_SETTINGS, `-c search_path=${values.schema}`, process.env.PG_EXTRA ?? ""].join(" "),
});
const { rows: conns } = await pool.query<{ connection_id: string; connector_key: string }>(
  "SELECT connection_id, connector_key FROM connections ORDER BY connection_id",
);
const scopes: StreamScope[] = BENCH_MANIFESTS.flatMap((m) =>
  m.streams
    .filter((s) => !values.stream || s.name === values.stream)
    .map((s) => ({
      connectorKey: m.connector_key,
      stream: s,
      connectionIds: conns.filter((c) => c.connector_key === m.connector_key).map((c) => c.connection_id),
      fields: "all" as const,
      since: null,
      until: null,
    })),
);
const limit = Number(values.limit);
const clauses = parseSearchQuery(String(values.q));
const rankWindow = Number(process.env.PG_WINDOW ?? 250);
const query = { clauses, conditions: [], limit, offset: 0, rankWindow };
const limit1 = enumerateLimit(rankWindow) + 1;
// The plans search.ts would pick from search_df's bounds (PG_NO_DF=1: none, the counting plans).
const bounds = process.env.PG_NO_DF ? null : matchBoundsSql(scopes, query);
const plans = new Map<string, ClausePlan>();
if (bounds) {
  const { rows } = await pool.query<{ key: string; floor: string; ceiling: string }>(
    bounds.sql,
    bounds.values,
  );
  for (const r of rows)
    plans.set(r.key, clausePlan({ floor: Number(r.floor), ceiling: Number(r.ceiling) }, limit1));
}
const statement = clauseHitsSql(scopes, query, { limit1, offer: rankWindow, plans });
if (statement === null) {
  console.log("no clause to read (search_df: no matches)");
  process.exit(0);
}
const { sql, values: params } = statement;
// --repeat N: explain N times on one connection and print only the last (warm catalog caches).
const explain = `EXPLAIN (ANALYZE, BUFFERS${values["timing-off"] ? ", TIMING OFF" : ""}) ${sql}`;
let rows: { "QUERY PLAN": string }[] = [];
for (let i = 0; i < Number(values.repeat); i++) {
  rows = (await pool.query(explain, params)).rows;
  if (values.summary)
    console.log(
      rows
        .filter((r) => /^(Planning|Execution) Time/.test(r["QUERY PLAN"]))
        .map((r) => r["QUERY PLAN"])
        .join("; "),
    );
}
if (!values.summary) for (const r of rows) console.log(r["QUERY PLAN"]);
await pool.end();
