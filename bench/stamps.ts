// Change-stamp costs (issue 8, core/stamps.ts), each beside a raw-SQL floor from the same run:
// - a changes_since page for a fields:"all" grant (the old query, must not move) and for a
//   projected grant (ordered by the version it observes), from the start, the middle and the end;
// - a list page and a record read for a projected grant (emitted_at from stamps in TS);
// - the ingest of update batches (the diff and stamp write per updated record).
// Usage: node --import tsx bench/stamps.ts [--pg URL] (BENCH_N records, default 100000; 20% updated).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { StreamScope } from "../src/core/grant.js";
import type { Manifest, StreamDef } from "../src/core/manifest.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { IngestOp, Store } from "../src/store/store.js";
import { measure } from "./measure.js";

const N = Number(process.env.BENCH_N ?? 100_000);
const PAGE = 100;
const pgUrl = process.argv.includes("--pg") ? process.argv[process.argv.indexOf("--pg") + 1] : undefined;

const STREAM: StreamDef = {
  name: "messages",
  primary_key: ["message_id"],
  cursor_field: "sent_at",
  time_field: "sent_at",
  title_field: "subject",
  schema: {
    type: "object",
    properties: {
      message_id: { type: "string" },
      subject: { type: "string" },
      from: { type: "string" },
      sent_at: { type: "string", format: "date-time" },
      body: { type: "string" },
      note: { type: "string" },
      meta: { type: "object", properties: { a: { type: "integer" }, b: { type: "string" } } },
    },
  },
  text_fields: ["body"],
};
const MANIFEST: Manifest = {
  connector_key: "benchmail",
  display_name: "Bench",
  version: "1",
  streams: [STREAM],
};

function record(i: number, variant = 0): Record<string, unknown> {
  return {
    message_id: `m${i}`,
    subject: `subject ${i}${variant === 2 ? " (edited)" : ""}`,
    from: `user${i % 50}@example.com`,
    sent_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    body: `body of message ${i} `.repeat(8),
    note: `note ${i}${variant === 1 ? " hidden edit" : ""}`,
    meta: { a: i % 7, b: "x" },
  };
}

interface Floor {
  changes(after: number): Promise<unknown>;
  close(): Promise<void>;
}

async function main() {
  const results: string[] = [];
  const row = (scenario: string, ms: number, floor: number) =>
    results.push(
      `${scenario.padEnd(58)} p50 ${ms.toFixed(2).padStart(8)} ms  floor ${floor.toFixed(2).padStart(8)} ms  ratio ${(ms / floor).toFixed(2)}`,
    );
  let store: Store;
  let floor: Floor;
  let cleanup: () => Promise<void>;
  const backend = pgUrl ? "postgres" : "sqlite";
  if (pgUrl) {
    const schema = `bench_stamps_${process.pid}`;
    store = await openPostgresStore({ url: pgUrl, schema });
    const pool = new pg.Pool({ connectionString: pgUrl, options: `-c search_path=${schema}` });
    floor = {
      changes: (after) =>
        pool.query(
          `SELECT r.*, c.connector_key FROM records r JOIN connections c USING (connection_id)
           WHERE r.stream = 'messages' AND r.version > $1 ORDER BY r.version LIMIT ${PAGE + 1}`,
          [after],
        ),
      close: () => pool.end(),
    };
    cleanup = async () => {
      await store.close();
      await floor.close();
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      if (process.env.BENCH_KEEP) console.log("kept schema", schema);
      else await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-stamps-"));
    store = await openSqliteStore({ path: join(dir, "pdpp.db") });
    const raw = new Database(join(dir, "pdpp.db"), { readonly: true });
    const stmt = raw.prepare(
      `SELECT * FROM records r WHERE r.stream = 'messages' AND r.version > ? ORDER BY r.version LIMIT ${PAGE + 1}`,
    );
    floor = {
      changes: async (after) => stmt.all(after),
      close: async () => {
        raw.close();
      },
    };
    cleanup = async () => {
      await store.close();
      await floor.close();
      if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
      else console.log("kept", dir);
    };
  }
  try {
    await store.putManifest(MANIFEST);
    const conn = await store.ensureConnection("benchmail", "Bench");
    const batch = 1000;
    let t0 = performance.now();
    for (let i = 0; i < N; i += batch) {
      const ops: IngestOp[] = [];
      for (let j = i; j < Math.min(N, i + batch); j++) ops.push({ op: "upsert", data: record(j) });
      await store.applyBatch(conn.connection_id, "messages", ops);
    }
    const loadMs = performance.now() - t0;
    // 10% hidden-only updates (note), then 10% visible ones (subject), spread over the store.
    const updates = async (variant: number, offset: number) => {
      const start = performance.now();
      let count = 0;
      for (let i = offset; i < N; i += batch * 10) {
        const ops: IngestOp[] = [];
        for (let j = i; j < Math.min(N, i + batch * 10); j += 10)
          ops.push({ op: "upsert", data: record(j, variant) });
        count += ops.length;
        await store.applyBatch(conn.connection_id, "messages", ops);
      }
      return { ms: performance.now() - start, count };
    };
    const hidden = await updates(1, 3);
    const visible = await updates(2, 7);
    const perInsert = loadMs / N;
    results.push(
      `${backend}: ${N} records loaded in ${loadMs.toFixed(0)} ms (${(perInsert * 1000).toFixed(1)} µs/insert, the floor); ` +
        `${hidden.count} hidden-only updates ${((hidden.ms / hidden.count) * 1000).toFixed(1)} µs each (ratio ${(hidden.ms / hidden.count / perInsert).toFixed(2)}), ` +
        `${visible.count} visible updates ${((visible.ms / visible.count) * 1000).toFixed(1)} µs each (ratio ${(visible.ms / visible.count / perInsert).toFixed(2)})`,
    );
    t0 = performance.now();
    const scope = (fields: string[] | "all"): StreamScope => ({
      connectorKey: "benchmail",
      stream: STREAM,
      connectionIds: [conn.connection_id],
      fields,
      since: null,
      until: null,
    });
    const all = scope("all");
    const projected = scope(["subject", "from", "sent_at", "body", "meta.a"]);
    const top = (await store.listChanges([all], { afterVersion: 0, limit: 1 })).records[0].version;
    const maxVersion = top + N + hidden.count + visible.count;
    for (const [label, after] of [
      ["start", 0],
      ["middle", Math.floor(N / 2)],
      ["end", maxVersion - 2 * PAGE],
    ] as const) {
      const f = await measure(() => floor.changes(after), { runs: 15 });
      const a = await measure(() => store.listChanges([all], { afterVersion: after, limit: PAGE }), {
        runs: 15,
      });
      const p = await measure(() => store.listChanges([projected], { afterVersion: after, limit: PAGE }), {
        runs: 15,
      });
      row(`changes page (${PAGE}) from ${label}, fields all`, a.p50, f.p50);
      row(`changes page (${PAGE}) from ${label}, projected grant`, p.p50, f.p50);
    }
    const listQuery = { conditions: [], sort: { field: "sent_at", direction: "desc" as const }, limit: PAGE };
    const fl = await measure(() => floor.changes(0), { runs: 15 });
    const la = await measure(() => store.listRecords([all], listQuery), { runs: 15 });
    const lp = await measure(() => store.listRecords([projected], listQuery), { runs: 15 });
    row(`list page (${PAGE}), fields all`, la.p50, fl.p50);
    row(`list page (${PAGE}), projected grant`, lp.p50, fl.p50);
    // A full projected sync, page after page (each page's cost, against the floor's page).
    let after = 0;
    let pages = 0;
    const syncStart = performance.now();
    for (;;) {
      const page = await store.listChanges([projected], { afterVersion: after, limit: PAGE });
      pages++;
      after = page.lastVersion;
      if (!page.hasMore) break;
    }
    const syncMs = performance.now() - syncStart;
    after = 0;
    const floorStart = performance.now();
    for (let i = 0; i < pages; i++) {
      const rows = (await floor.changes(after)) as unknown;
      const list = (Array.isArray(rows) ? rows : (rows as { rows: { version: number }[] }).rows) as {
        version: number;
      }[];
      after = Number(list[Math.min(PAGE, list.length) - 1]?.version ?? after);
    }
    const floorMs = performance.now() - floorStart;
    row(`full projected sync: ${pages} pages, per page`, syncMs / pages, floorMs / pages);
  } finally {
    await cleanup();
  }
  for (const line of results) console.log(line);
}

await main();
