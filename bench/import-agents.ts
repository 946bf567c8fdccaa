// Throughput of the agent-history importers (claude, claude-code, codex) on generated inputs of a given
// size: records/s and peak RSS through importFile (the `pdpp import` path, in-process RS over SQLite),
// beside two floors measured in the same run on the same records — parsing alone, and raw SQL inserts of
// the records' JSON into a bare SQLite table in 500-row transactions — and the ratio to the raw floor.
// Usage: tsx bench/import-agents.ts [--mb 100] --only <one importer> (one per process, so peak RSS is
// that importer's). Data in bench/data.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { hashToken, newToken } from "../src/core/ids.js";
import { importFile } from "../src/importers/import-file.js";
import { findFormat } from "../src/importers/registry.js";
import { createApp } from "../src/rs/app.js";
import {
  buildClaudeCodeSession,
  buildClaudeExport,
  buildCodexRollout,
  fakeUuid,
} from "../src/sample/agent-sample.js";
import { createRng } from "../src/sample/prng.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "100" },
    only: { type: "string", default: "claude,claude-code,codex" },
    // Generate the inputs and stop: run again to measure, so generation's memory is not in the peak.
    generate: { type: "boolean", default: false },
  },
});
const targetBytes = Number(values.mb) * 1024 * 1024;
const dataDir = join("bench", "data", `agents-${values.mb}mb`);
const START = Date.UTC(2024, 0, 1);

function dirBytes(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  let n = 0;
  for (const name of readdirSync(path, { recursive: true }) as string[]) {
    const st = statSync(join(path, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

/** Generate the input once (bench/data is reused across runs); returns its path. */
async function generate(kind: string): Promise<string> {
  mkdirSync(dataDir, { recursive: true });
  const rng = createRng(7);
  if (kind === "claude") {
    const path = join(dataDir, "claude-conversations.json");
    if (existsSync(path)) return path;
    writeFileSync(path, "[\n");
    let bytes = 2;
    let first = true;
    while (bytes < targetBytes) {
      const chunk = buildClaudeExport(rng, { count: 200, startMs: START })
        .map((c) => JSON.stringify(c))
        .join(",\n");
      await appendFile(path, `${first ? "" : ",\n"}${chunk}`);
      first = false;
      bytes += chunk.length;
    }
    await appendFile(path, "\n]\n");
    return path;
  }
  const root = join(dataDir, kind);
  if (existsSync(root)) return root;
  let bytes = 0;
  for (let s = 0; bytes < targetBytes; s++) {
    const id = fakeUuid(rng);
    const startMs = START + s * 600_000;
    if (kind === "claude-code") {
      const dir = join(root, `-home-bench-p${s % 20}`);
      mkdirSync(dir, { recursive: true });
      const text = buildClaudeCodeSession(rng, { sessionId: id, startMs, cwd: "/home/bench", turns: 40 });
      writeFileSync(join(dir, `${id}.jsonl`), text);
      bytes += text.length;
    } else {
      const dir = join(root, "2024", "01", String(1 + (s % 28)).padStart(2, "0"));
      mkdirSync(dir, { recursive: true });
      const text = buildCodexRollout(rng, { sessionId: id, startMs, cwd: "/home/bench", turns: 40 });
      writeFileSync(join(dir, `rollout-2024-01-01T00-00-00-${id}.jsonl`), text);
      bytes += text.length;
    }
  }
  return root;
}

async function run(kind: string): Promise<Record<string, unknown>> {
  const path = await generate(kind);
  const inputMb = dirBytes(path) / 1024 ** 2;
  const tmp = mkdtempSync(join(tmpdir(), "pdpp-bench-agents-"));
  try {
    let t = 0;
    // The project: importFile through the in-process RS into a fresh SQLite store.
    const store = await openSqliteStore({ path: join(tmp, "pdpp.db") });
    const ownerToken = newToken("owner");
    await store.putOwnerToken(hashToken(ownerToken));
    const app = createApp({ store });
    const api = { fetch: async (r: Request) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken };
    const load = loadavg()[0]!;
    t = performance.now();
    const result = await importFile(api, { kind, path, stateDir: join(tmp, "state") });
    const seconds = (performance.now() - t) / 1000;
    // Re-run over unchanged input: folder importers skip every file.
    t = performance.now();
    const again = await importFile(api, { kind, path, stateDir: join(tmp, "state") });
    const againSeconds = (performance.now() - t) / 1000;
    // Peak RSS of the process so far: the import runs first, before the floors hold records in memory.
    const peak = process.resourceUsage().maxRSS * 1024;
    await store.close();
    // Floor 1: parse only (same reader, no store).
    t = performance.now();
    const lines: string[] = [];
    let parsed = 0;
    for await (const item of (await findFormat(kind).open(path, {})).items) {
      if (!("data" in item)) continue;
      parsed++;
      if (lines.length < 2_000_000) lines.push(JSON.stringify(item.data));
    }
    const parseSeconds = (performance.now() - t) / 1000;

    // Floor 2: raw SQL inserts of the same records' JSON, 500 per transaction.
    const raw = new Database(join(tmp, "raw.db"));
    raw.pragma("journal_mode = WAL");
    raw.pragma("synchronous = NORMAL");
    raw.exec("CREATE TABLE r (id INTEGER PRIMARY KEY, data TEXT NOT NULL)");
    const insert = raw.prepare("INSERT INTO r (data) VALUES (?)");
    const batch = raw.transaction((rows: string[]) => {
      for (const row of rows) insert.run(row);
    });
    t = performance.now();
    for (let i = 0; i < lines.length; i += 500) batch(lines.slice(i, i + 500));
    const rawSeconds = (performance.now() - t) / 1000;
    raw.close();
    lines.length = 0;

    return {
      importer: kind,
      input_mb: Number(inputMb.toFixed(1)),
      records: result.read,
      rejected: result.rejected,
      seconds: Number(seconds.toFixed(1)),
      records_per_s: Math.round(result.read / seconds),
      mb_per_s: Number((inputMb / seconds).toFixed(2)),
      peak_rss_mb: Math.round(peak / 1024 ** 2),
      floor_parse_records_per_s: Math.round(parsed / parseSeconds),
      floor_raw_sql_records_per_s: Math.round(parsed / rawSeconds),
      ratio_to_raw_sql: Number((seconds / rawSeconds).toFixed(1)),
      rerun_seconds: Number(againSeconds.toFixed(2)),
      rerun_unchanged: again.unchanged,
      rerun_added: again.added,
      load_avg_1m: Number(load.toFixed(1)),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const rows: Record<string, unknown>[] = [];
for (const kind of values.only!.split(",")) {
  if (values.generate) {
    process.stdout.write(`${kind}: ${await generate(kind)}\n`);
    continue;
  }
  const row = await run(kind);
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
}
if (rows.length > 0) {
  mkdirSync(join("bench", "results"), { recursive: true });
  const out = join("bench", "results", `import-agents-${values.only!.replace(/,/g, "+")}.json`);
  writeFileSync(out, `${JSON.stringify(rows, null, 2)}\n`);
}
