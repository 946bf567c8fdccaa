// JSONL import throughput: writes a deterministic JSONL file of N transaction-like records (bench data
// only) and imports it with the real importer (importFile → owner sink → in-process RS → SQLite).
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import { importFile } from "../src/importers/import-file.js";
import { createApp } from "../src/rs/app.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { prng } from "./dataset.js";

export const JSONL_BENCH_MANIFEST: Manifest = {
  connector_key: "jsonl.ledger",
  display_name: "Ledger export",
  version: "1",
  streams: [
    {
      name: "entries",
      primary_key: ["id"],
      cursor_field: "posted_at",
      time_field: "posted_at",
      title_field: "description",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          posted_at: { type: "string", format: "date-time" },
          description: { type: "string" },
          counterparty: { type: "string" },
          category: { type: "string" },
          amount: { type: "number" },
          currency: { type: "string" },
          memo: { type: "string" },
        },
      },
      query: {
        search: ["description", "counterparty", "memo"],
        exact_filters: ["category", "currency"],
        range_filters: { posted_at: ["gte", "lt"], amount: ["gte", "lte"] },
      },
    },
  ],
};

const WORDS = "coffee rent grocery salary refund invoice hotel train taxi pharmacy book gym insurance".split(
  " ",
);
const PARTIES = ["Acme GmbH", "Blue Bottle", "City Rail", "Northwind", "Contoso Ltd", "Initech", "Globex"];

/** bench/data/ledger-<N>.jsonl, written once (about 250 bytes a record). */
export async function ensureJsonlFile(records: number): Promise<string> {
  const dir = join(import.meta.dirname, "data");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `ledger-${records}.jsonl`);
  if (existsSync(path)) return path;
  const rand = prng(records);
  const out = createWriteStream(`${path}.partial`);
  const start = Date.parse("2019-01-01T00:00:00Z");
  for (let i = 0; i < records; i++) {
    const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
    const line = JSON.stringify({
      id: `tx-${i}`,
      posted_at: new Date(start + Math.floor(rand() * 2e11)).toISOString(),
      description: `${pick(WORDS)} ${pick(WORDS)} ${i % 97}`,
      counterparty: pick(PARTIES),
      category: pick(WORDS),
      amount: Math.round((rand() - 0.7) * 100_000) / 100,
      currency: rand() < 0.9 ? "EUR" : "USD",
      memo: `ref ${Math.floor(rand() * 1e9)} ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${pick(PARTIES)}`,
    });
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  renameSync(`${path}.partial`, path);
  return path;
}

export interface JsonlImportResult {
  records: number;
  added: number;
  seconds: number;
  recordsPerSecond: number;
  fileMb: number;
}

export async function benchJsonlImport(records: number): Promise<JsonlImportResult> {
  const path = await ensureJsonlFile(records);
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-jsonl-"));
  const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  try {
    const ownerToken = newToken("owner");
    await store.putOwnerToken(hashToken(ownerToken));
    const app = createApp({ store });
    const started = performance.now();
    const result = await importFile(
      { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken },
      { kind: "jsonl", path, connectionLabel: "Ledger", generic: { manifest: JSONL_BENCH_MANIFEST } },
    );
    const seconds = (performance.now() - started) / 1000;
    if (result.added !== records) throw new Error(`imported ${result.added} of ${records} records`);
    return {
      records,
      added: result.added,
      seconds,
      recordsPerSecond: records / seconds,
      fileMb: statSync(path).size / 1e6,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
