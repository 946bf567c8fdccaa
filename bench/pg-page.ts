// The Postgres "page of 25" row of issue 10 on the reused search dataset (bench/search-data.ts), so
// it can run at 1M records without regenerating data: 25 newest messages from one sender with
// 512-char previews through the in-process RS, beside its raw-SQL floor (bench/floors.ts) measured
// in the same run, and the ratio. Usage: tsx bench/pg-page.ts --records N [--runs N] [--seed N]
import { parseArgs } from "node:util";
import { createApp } from "../src/rs/app.js";
import { grantEverything } from "./dataset.js";
import { postgresReadFloors } from "./floors.js";
import { type BenchRow, measure, printRow, writeResults } from "./measure.js";
import { postgresDataset } from "./search-data.js";

export async function runPgPageBench(opts: {
  records: number;
  runs: number;
  seed: number;
}): Promise<BenchRow[]> {
  const data = await postgresDataset(opts.records, opts.seed);
  const floors = postgresReadFloors(data.pg as { url: string; schema: string });
  const rows: BenchRow[] = [];
  try {
    const token = await grantEverything(data.store, "bench-page");
    const app = createApp({ store: data.store, publicUrl: "http://127.0.0.1:7662" });
    const get = async (path: string) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1:7662${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      if (response.status !== 200) throw new Error(`${path} → ${response.status} ${await response.text()}`);
      return response.json();
    };
    const people = ["alice", "bob", "carol", "dave", "erin"];
    const path = (i: number) =>
      `/v1/streams/messages/records?limit=25&sort=-sent_at&filter[from]=${people[i % 5]}@example.com&preview_chars=512`;
    const m = await measure((i) => get(path(i)), { runs: opts.runs });
    const f = await measure((i) => floors.page(`${people[i % 5]}@example.com`), { runs: opts.runs });
    const row: BenchRow & Record<string, unknown> = {
      backend: `postgres ${(opts.records / 1000).toLocaleString()}k`,
      scenario: "records page 25, filter + sort, previews 512",
      p50_ms: m.p50,
      p95_ms: m.p95,
      runs: opts.runs,
      target: "p50 ≤ 4 ms",
      note: `floor (rows + 512-char previews) ${f.p50.toFixed(2)}/${f.p95.toFixed(2)} ms, ratio p50 ${(m.p50 / f.p50).toFixed(1)}× p95 ${(m.p95 / f.p95).toFixed(1)}×`,
      floor_p50_ms: f.p50,
      floor_p95_ms: f.p95,
      ratio_p50: m.p50 / f.p50,
      ratio_p95: m.p95 / f.p95,
    };
    printRow(row);
    rows.push(row);
  } finally {
    await floors.close();
    await data.store.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      records: { type: "string", default: "200000" },
      runs: { type: "string", default: "200" },
      seed: { type: "string", default: "42" },
    },
  });
  const rows = await runPgPageBench({
    records: Number(values.records),
    runs: Number(values.runs),
    seed: Number(values.seed),
  });
  console.log(
    `results written to ${writeResults(rows, { records: Number(values.records), pgPage: true, date: new Date().toISOString() })}`,
  );
}
