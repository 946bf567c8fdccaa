// Timing helpers for the benchmarks: repeated runs, median and p95, one printed row per scenario.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface BenchRow {
  backend: string;
  scenario: string;
  p50_ms: number;
  p95_ms: number;
  runs: number;
  target: string;
  note?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Runs `fn` `runs` times after `warmup` untimed runs; `fn` gets the run index. */
export async function measure(
  fn: (i: number) => Promise<unknown>,
  options: { runs: number; warmup?: number },
): Promise<{ p50: number; p95: number; samples: number[] }> {
  for (let i = 0; i < (options.warmup ?? 3); i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), samples };
}

export function printRow(row: BenchRow): void {
  // A row without latencies (the hosted A/B measures throughput) prints a dash, not NaN.
  const fmt = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : "–").padStart(8);
  console.log(
    `${row.backend.padEnd(9)} ${row.scenario.padEnd(44)} p50 ${fmt(row.p50_ms)} ms  p95 ${fmt(row.p95_ms)} ms  ` +
      `(${row.runs} runs; target ${row.target})${row.note ? `  ${row.note}` : ""}`,
  );
}

export function writeResults(rows: BenchRow[], meta: Record<string, unknown>): string {
  const dir = join(process.cwd(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  return file;
}
