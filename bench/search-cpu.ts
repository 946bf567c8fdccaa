// CPU per SQLite search on the reused search dataset (bench/search-data.ts), for the rows the hosted
// mix runs (a rare term, "invoice" at limit 5 and 10), interleaved round by round with the raw-SQL
// floors of the same question so that load on a shared machine hits both alike; and a golden file
// of whole answers (every hit, score, order, recall, cursors) to show a change moves no result.
//   npx tsx bench/search-cpu.ts [--records 1000000] [--runs 60] [--golden FILE | --check FILE]
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { hashToken, newGrantId, newToken } from "../src/core/ids.js";
import { parseSearchQuery } from "../src/core/search-query.js";
import { createApp } from "../src/rs/app.js";
import { clauseExpr } from "../src/store/sqlite/search-text.js";
import { grantEverything } from "./dataset.js";
import { NATURAL } from "./search.js";
import { sqliteDataset } from "./search-data.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "1000000" },
    seed: { type: "string", default: "42" },
    runs: { type: "string", default: "60" },
    golden: { type: "string" },
    check: { type: "string" },
    only: { type: "string" },
    /** Comma-separated queries to measure (limit 10) instead of the default rows. */
    queries: { type: "string" },
  },
});

const data = await sqliteDataset(Number(values.records), Number(values.seed));
const store = data.store;
const app = createApp({ store, publicUrl: "http://127.0.0.1:7662" });
const all = await grantEverything(store, "bench-search-cpu");
const conns = await store.listConnections();
const work = conns.find((c) => c.display_name === "Work mail")?.connection_id as string;
// A projected, time-bounded grant on one mail connection: the join paths and stamps.
const narrowToken = newToken("client");
await store.createGrant({
  grant_id: newGrantId(),
  client_name: "bench-search-cpu-narrow",
  purpose: "benchmark",
  created_at: new Date().toISOString(),
  expires_at: null,
  revoked_at: null,
  token_hash: hashToken(narrowToken),
  streams: [
    {
      stream: "messages",
      connector_key: "mbox",
      connections: [work],
      fields: ["subject", "body", "sent_at"],
      time_range: { since: "2020-01-01T00:00:00Z", until: null },
    },
    { stream: "chat_messages", connector_key: "chatgpt", connections: "all", fields: ["text"] },
  ],
});

async function get(token: string, qs: string): Promise<Record<string, unknown>> {
  const r = await app.fetch(
    new Request(`http://127.0.0.1:7662/v1/search?${qs}`, { headers: { authorization: `Bearer ${token}` } }),
  );
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${qs} → ${r.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const q = (s: string) => encodeURIComponent(s);

if (values.golden || values.check) {
  const RARE = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
  const COMMON = [
    "invoice",
    "meeting project",
    "budget travel hotel",
    "report",
    "tax refund",
    "server",
    "inv*",
  ];
  const cases: [string, string][] = [];
  for (const term of [...RARE, ...COMMON, ...NATURAL]) {
    for (const limit of [1, 5, 10, 25, 100]) cases.push(["all", `q=${q(term)}&limit=${limit}`]);
    cases.push(["all", `q=${q(term)}&limit=10&connection_id=${work}`]);
    cases.push(["all", `q=${q(term)}&limit=10&streams=messages&filter[from]=alice@example.com`]);
    cases.push(["narrow", `q=${q(term)}&limit=10`]);
    cases.push(["narrow", `q=${q(term)}&limit=5&streams=messages`]);
  }
  const out: Record<string, unknown> = {};
  for (const [who, qs] of cases) {
    const token = who === "all" ? all : narrowToken;
    const first = await get(token, qs);
    // Page two through the cursor, as a client would.
    const cursor = first.next_cursor as string | null;
    const second = cursor ? await get(token, `${qs}&cursor=${q(cursor)}`) : null;
    // Cursors are sealed with a random nonce: compare what they lead to, not their bytes.
    const strip = (b: Record<string, unknown> | null) => b && { ...b, next_cursor: b.next_cursor !== null };
    out[`${who} ${qs}`] = [strip(first), strip(second)];
  }
  if (values.golden) {
    writeFileSync(values.golden, JSON.stringify(out, null, 1));
    console.log(`wrote ${Object.keys(out).length} answers to ${values.golden}`);
  } else {
    const want = JSON.parse(readFileSync(values.check as string, "utf8")) as Record<string, unknown>;
    let bad = 0;
    for (const [key, answer] of Object.entries(out)) {
      if (JSON.stringify(answer) !== JSON.stringify(want[key])) {
        bad++;
        console.log(`DIFFERENT: ${key}`);
      }
    }
    console.log(`${Object.keys(out).length - bad} of ${Object.keys(out).length} answers identical`);
    if (bad > 0) process.exitCode = 1;
  }
  await store.close();
  process.exit();
}

const floorDb = new Database(data.sqlitePath as string, { readonly: true });
const tables = floorDb.prepare("SELECT name FROM search_tables").pluck().all() as string[];
const floorNewest = tables.map((t) =>
  floorDb.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 10`),
);
const floorWindow = tables.map((t) =>
  floorDb.prepare(
    `SELECT count(*) FROM (SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 20000)`,
  ),
);
const expr = (s: string) =>
  parseSearchQuery(s)
    .map((c) => clauseExpr(c.match))
    .join(" OR ");

const scenarios: { name: string; run: () => unknown }[] = [
  { name: "search rare (quokka) limit 5", run: () => get(all, "q=quokka&limit=5") },
  { name: "search common (invoice) limit 5", run: () => get(all, "q=invoice&limit=5") },
  { name: "search common (invoice) limit 10", run: () => get(all, "q=invoice&limit=10") },
  {
    name: "floor: newest 10 matches per table (invoice)",
    run: () => {
      for (const s of floorNewest) s.all(expr("invoice"));
    },
  },
  {
    name: "floor: window 10k + 10k counted per table (invoice)",
    run: () => {
      for (const s of floorWindow) s.all(expr("invoice"));
    },
  },
  {
    name: "floor: newest 10 matches per table (quokka)",
    run: () => {
      for (const s of floorNewest) s.all(expr("quokka"));
    },
  },
]
  .filter((s) => !values.only || s.name.includes(values.only))
  .filter(() => !values.queries);
for (const text of values.queries?.split(",") ?? []) {
  scenarios.push({ name: `search "${text}" limit 10`, run: () => get(all, `q=${q(text)}&limit=10`) });
}

const runs = Number(values.runs);
const cpu = new Map(scenarios.map((s) => [s.name, [] as number[]]));
for (let i = 0; i < 3; i++) for (const s of scenarios) await s.run();
const load0 = loadavg()[0];
for (let i = 0; i < runs; i++) {
  for (const s of scenarios) {
    const c0 = process.cpuUsage();
    await s.run();
    const c1 = process.cpuUsage(c0);
    cpu.get(s.name)?.push((c1.user + c1.system) / 1000);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `CPU ms per call, ${runs} interleaved rounds, load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}`,
);
for (const [name, xs] of cpu)
  console.log(`  ${name.padEnd(56)} mean ${mean(xs).toFixed(2)}  median ${med(xs).toFixed(2)}`);
floorDb.close();
await store.close();
