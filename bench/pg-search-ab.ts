// A/B of Postgres search variants on a bench dataset (bench/search-data.ts), interleaved in one run:
// per variant the wall p50/p95, the Node CPU and the Postgres backend CPU per search (from
// /proc/<backend pid>/stat, so the server must be local) and the statements sent. A tool for
// comparing changes on a shared, noisy machine, not a benchmark row.
// Usage: tsx bench/pg-search-ab.ts --schema S [--runs 60] [--q "tax refund,invoice"] [--projected]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import type { StreamScope } from "../src/core/grant.js";
import { parseSearchQuery } from "../src/core/search-query.js";
import { matchedEstimate } from "../src/core/search-ranking.js";
import { SESSION_SETTINGS } from "../src/store/postgres/pool.js";
import { search } from "../src/store/postgres/search.js";
import { type CandidateRow, candidatesSql } from "../src/store/postgres/search-candidates.js";
import { pageDetails } from "../src/store/postgres/search-hits.js";
import { grantedSearchFields } from "../src/store/postgres/search-sql.js";
import { observeHits } from "../src/store/postgres/seen-sql.js";
import type { SearchQuery } from "../src/store/store.js";
import { BENCH_MANIFESTS } from "./dataset.js";
import { percentile } from "./measure.js";
import { pgUrl } from "./search-data.js";

const { values } = parseArgs({
  options: {
    schema: { type: "string" },
    runs: { type: "string", default: "60" },
    q: { type: "string", default: "zanzibar,quokka,invoice,meeting project,tax refund" },
    projected: { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);

/**
 * The search before issue 10's one-statement fold: candidates, page rows, texts, stamps apart (its
 * merge of scopes is approximate: it is here for what it costs, not for its answer).
 */
async function searchApart(pool: pg.Pool, scopes: StreamScope[], query: SearchQuery) {
  const live = scopes.filter((s) => s.connectionIds.length > 0 && grantedSearchFields(s).length > 0);
  const end = query.offset + query.limit;
  const { sql, values: params } = candidatesSql(live, { ...query, k: end + 1 });
  const { rows } = await pool.query<CandidateRow>(sql, params);
  const totals = new Map<number, number>();
  const cands = rows.map(({ scope, total, ...row }) => {
    totals.set(scope, Number(total));
    return { ...row, stream: live[scope].stream.name, score: Number(row.score), scope: live[scope] };
  });
  let estimate = 0;
  for (const t of totals.values())
    estimate += t <= query.rankWindow ? t : matchedEstimate(query.rankWindow, t - query.rankWindow);
  cands.sort((a, b) => b.score - a.score || (b.time ?? "").localeCompare(a.time ?? ""));
  const page = cands.slice(query.offset, end);
  const details = await pageDetails(pool, page, query.terms);
  const hits = page.map((c, i) => ({
    connectionId: c.connection_id,
    connectorKey: c.scope.connectorKey,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
    score: c.score,
    ...details[i],
  }));
  return observeHits(pool, scopes, {
    hits,
    hasMore: false,
    recall: { complete: false, rankingScope: "candidate_window", matchedEstimate: estimate },
  });
}

function backendTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks (1/100 s)
}

async function openOne() {
  const pool = new pg.Pool({
    connectionString: pgUrl(),
    max: 1,
    options: [...SESSION_SETTINGS, `-c search_path=${values.schema}`].join(" "),
  });
  const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  let sent = 0;
  const original = pool.query.bind(pool);
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    sent++;
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  return { pool, pid: rows[0].pid, sent: () => sent };
}

const probe = await openOne();
const { rows: conns } = await probe.pool.query<{ connection_id: string; connector_key: string }>(
  "SELECT connection_id, connector_key FROM connections ORDER BY connection_id",
);
await probe.pool.end();
const scopes: StreamScope[] = BENCH_MANIFESTS.flatMap((m) =>
  m.streams.map((s) => ({
    connectorKey: m.connector_key,
    stream: s,
    connectionIds: conns.filter((c) => c.connector_key === m.connector_key).map((c) => c.connection_id),
    // --projected: every field but the last declared one (stamps are then read for the page).
    fields: values.projected
      ? Object.keys(
          (s.schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {},
        ).slice(0, -1)
      : ("all" as const),
    since: null,
    until: null,
  })),
);
const queries = String(values.q).split(",");
type Variant = { name: string; run: (pool: pg.Pool, q: string) => Promise<unknown> };
const variants: Variant[] = [
  {
    name: "apart (before)",
    run: (pool, q) =>
      searchApart(pool, scopes, {
        terms: parseSearchQuery(q),
        conditions: [],
        limit: 10,
        offset: 0,
        rankWindow: 10_000,
      }),
  },
  {
    name: "one statement",
    run: (pool, q) =>
      search(pool, scopes, {
        terms: parseSearchQuery(q),
        conditions: [],
        limit: 10,
        offset: 0,
        rankWindow: 10_000,
      }),
  },
];
const opened = await Promise.all(variants.map(() => openOne()));
for (const q of queries) {
  const stats = variants.map(() => ({ wall: [] as number[], node: 0, ticks: 0, sent: 0 }));
  for (const [v, variant] of variants.entries())
    for (let i = 0; i < 3; i++) await variant.run(opened[v].pool, q);
  for (let i = 0; i < runs; i++) {
    for (const [v, variant] of variants.entries()) {
      const o = opened[v];
      const s0 = o.sent();
      const k0 = backendTicks(o.pid);
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await variant.run(o.pool, q);
      stats[v].wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const c1 = process.cpuUsage(c0);
      stats[v].node += (c1.user + c1.system) / 1000;
      stats[v].ticks += backendTicks(o.pid) - k0;
      stats[v].sent += o.sent() - s0;
    }
  }
  for (const [v, variant] of variants.entries()) {
    const s = stats[v];
    const sorted = [...s.wall].sort((a, b) => a - b);
    console.log(
      `${JSON.stringify(q).padEnd(18)} ${variant.name.padEnd(16)} p50 ${percentile(sorted, 50).toFixed(2).padStart(7)} ms  p95 ${percentile(sorted, 95).toFixed(2).padStart(7)} ms  node ${(s.node / runs).toFixed(2)} ms  server ${((s.ticks * 10) / runs).toFixed(2)} ms  ${(s.sent / runs).toFixed(1)} statements`,
    );
  }
}
await Promise.all(opened.map((o) => o.pool.end()));
