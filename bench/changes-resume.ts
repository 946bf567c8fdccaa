// What a sync client pays per changes_since page at scale (issue 20 item 11): a page of 100 that
// follows a bookmark, through the in-process RS with a client grant (fields "all", and a projected
// grant that hides a field), in three positions: the middle of the stream with the bookmark's last
// record unchanged, the same after that record was deleted, and caught up (an empty page, what a
// polling client asks most). Each row prints beside its raw-SQL floor measured in the same run (the
// same 101 rows by stored version from the version index and their text chunks, no grant logic, no
// JSON) and the ratio; the caught-up floor is the same statement past the newest version.
// Records are written in batches of 1,000 (one emitted_at each), then 10% get hidden-only updates
// and 10% visible ones, as in bench/stamps.ts.
// Usage: tsx bench/changes-resume.ts [--records N] [--runs N] [--pg URL] [--keep NAME]
// (default 200000 records, 40 runs). --keep builds the dataset once under NAME (a folder in the
// system temp dir, or a Postgres schema) and reuses it, so two builds of pdpp can be measured on
// the same data, turn about; each run deletes one more record near the middle.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { hashToken, newGrantId, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import { createApp } from "../src/rs/app.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { IngestOp, Store } from "../src/store/store.js";
import { measure } from "./measure.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    runs: { type: "string", default: "40" },
    pg: { type: "string" },
    keep: { type: "string" },
  },
});
const N = Number(values.records);
const RUNS = Number(values.runs);
const PAGE = 100;

const MANIFEST: Manifest = {
  connector_key: "benchsync",
  display_name: "Bench sync",
  version: "1",
  streams: [
    {
      name: "messages",
      primary_key: ["message_id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          subject: { type: "string" },
          from: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string" },
          note: { type: "string" },
        },
      },
      text_fields: ["body"],
    },
  ],
};

function record(i: number, variant = 0): Record<string, unknown> {
  return {
    message_id: `m${String(i).padStart(8, "0")}`,
    subject: `subject ${i}${variant === 2 ? " (edited)" : ""}`,
    from: `user${i % 50}@example.com`,
    sent_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    body: `body of message ${i} `.repeat(8),
    note: `note ${i}${variant === 1 ? " hidden edit" : ""}`,
  };
}

interface Backend {
  store: Store;
  /** True when the dataset was already there (--keep). */
  reused: boolean;
  /** The floor: the next 101 rows after `version` by stored version. */
  floor(version: number): Promise<unknown>;
  /** The stored version of a record (to place the floor where the bookmark is). */
  versionOf(recordId: string): Promise<number>;
  close(): Promise<void>;
}

async function open(): Promise<Backend> {
  if (values.pg) {
    const url = values.pg;
    const schema = values.keep ? `bench_resume_${values.keep}` : `bench_resume_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'records'",
      [schema],
    );
    await admin.end();
    const store = await openPostgresStore({ url, schema });
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
    return {
      store,
      reused: rows.length > 0,
      floor: async (v) => {
        const { rows } = await pool.query<{ rid: string }>(
          `SELECT r.*, c.connector_key FROM records r JOIN connections c USING (connection_id)
           WHERE r.stream = 'messages' AND r.version > $1 ORDER BY r.version LIMIT ${PAGE + 1}`,
          [v],
        );
        return pool.query("SELECT rid, path, seq, body FROM text_chunks WHERE rid = ANY($1::bigint[])", [
          rows.map((r) => r.rid),
        ]);
      },
      versionOf: async (id) =>
        Number((await pool.query("SELECT version FROM records WHERE record_id = $1", [id])).rows[0].version),
      async close() {
        await store.close();
        await pool.end();
        if (values.keep) return;
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      },
    };
  }
  const dir = values.keep
    ? join(tmpdir(), `pdpp-bench-resume-${values.keep}`)
    : mkdtempSync(join(tmpdir(), "pdpp-bench-resume-"));
  mkdirSync(dir, { recursive: true });
  const reused = existsSync(join(dir, "pdpp.db"));
  const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  const raw = new Database(join(dir, "pdpp.db"), { readonly: true });
  const page = raw.prepare(
    `SELECT * FROM records r WHERE r.stream = 'messages' AND r.version > ? ORDER BY r.version LIMIT ${PAGE + 1}`,
  );
  const texts = raw.prepare(
    `SELECT record_row, path, 0 AS seq, text FROM text_fields
     WHERE record_row IN (SELECT value FROM json_each(@ids)) AND text IS NOT NULL
     UNION ALL SELECT record_row, path, seq, text FROM text_chunks
     WHERE record_row IN (SELECT value FROM json_each(@ids)) ORDER BY record_row, path, seq`,
  );
  const version = raw.prepare("SELECT version FROM records WHERE record_id = ?");
  return {
    store,
    reused,
    floor: async (v) =>
      texts.all({ ids: JSON.stringify((page.all(v) as { id: number }[]).map((r) => r.id)) }),
    versionOf: async (id) => (version.get(id) as { version: number }).version,
    async close() {
      raw.close();
      await store.close();
      if (!values.keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function grant(store: Store, fields: string[] | "all"): Promise<string> {
  const token = newToken("client");
  await store.createGrant({
    grant_id: newGrantId(),
    client_name: "bench-sync",
    purpose: "benchmark",
    created_at: new Date().toISOString(),
    expires_at: null,
    revoked_at: null,
    token_hash: hashToken(token),
    streams: [{ stream: "messages", connector_key: "benchsync", connections: "all", fields }],
  });
  return token;
}

async function main() {
  const b = await open();
  const lines: string[] = [];
  try {
    const { store } = b;
    await store.putManifest(MANIFEST);
    const conn = (await store.ensureConnection("benchsync", "Bench")).connection_id;
    const t0 = performance.now();
    for (let i = 0; i < (b.reused ? 0 : N); i += 1000) {
      const ops: IngestOp[] = [];
      for (let j = i; j < Math.min(N, i + 1000); j++) ops.push({ op: "upsert", data: record(j) });
      await store.applyBatch(conn, "messages", ops);
    }
    for (const [variant, offset] of [
      [1, 3],
      [2, 7],
    ]) {
      for (let i = offset; i < (b.reused ? 0 : N); i += 10_000) {
        const ops: IngestOp[] = [];
        for (let j = i; j < Math.min(N, i + 10_000); j += 10)
          ops.push({ op: "upsert", data: record(j, variant) });
        await store.applyBatch(conn, "messages", ops);
      }
    }
    lines.push(
      `${values.pg ? "postgres" : "sqlite"} ${N} records ${b.reused ? "reused" : "built"} in ${((performance.now() - t0) / 1000).toFixed(0)} s; load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    const app = createApp({ store, publicUrl: "http://127.0.0.1:7662" });
    const get = async (token: string, mark: string) => {
      const response = await app.fetch(
        new Request(
          `http://127.0.0.1:7662/v1/streams/messages/records?changes_since=${encodeURIComponent(mark)}&limit=${PAGE}`,
          { headers: { authorization: `Bearer ${token}` } },
        ),
      );
      if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
      return (await response.json()) as {
        data: { record_id: string }[];
        has_more: boolean;
        next_changes_since: string;
      };
    };
    const row = (scenario: string, m: { p50: number; p95: number }, f: { p50: number; p95: number }) =>
      lines.push(
        `${scenario.padEnd(52)} p50 ${m.p50.toFixed(2).padStart(7)} ms (floor ${f.p50.toFixed(2)}, ${(m.p50 / f.p50).toFixed(1)}×)  p95 ${m.p95.toFixed(2).padStart(7)} ms (floor ${f.p95.toFixed(2)}, ${(m.p95 / f.p95).toFixed(1)}×)`,
      );
    for (const [label, fields, victim] of [
      ["fields all", "all", Math.floor(N / 2) + 1],
      ["projected (note hidden)", ["subject", "from", "sent_at", "body"], Math.floor(N / 2) + 5],
    ] as const) {
      const token = await grant(store, fields === "all" ? "all" : [...fields]);
      // Walk to the middle: the bookmark whose last record is `victim`'s predecessor page end.
      let mark = "beginning";
      let last = "";
      for (;;) {
        const page = await get(token, mark);
        mark = page.next_changes_since;
        last = page.data.at(-1)?.record_id ?? last;
        if (last >= `m${String(victim).padStart(8, "0")}` || !page.has_more) break;
      }
      const at = await b.versionOf(last);
      const floor = await measure(() => b.floor(at), { runs: RUNS });
      row(
        `page ${PAGE} from the middle, ${label}`,
        await measure(() => get(token, mark), { runs: RUNS }),
        floor,
      );
      await store.applyBatch(conn, "messages", [{ op: "delete", data: { message_id: last } }]);
      row(
        `  … its last record deleted since`,
        await measure(() => get(token, mark), { runs: RUNS }),
        await measure(() => b.floor(at), { runs: RUNS }),
      );
      // Caught up: follow to the end, then poll.
      for (;;) {
        const page = await get(token, mark);
        mark = page.next_changes_since;
        if (!page.has_more) break;
      }
      const top = Number.MAX_SAFE_INTEGER;
      row(
        `caught up (empty page), ${label}`,
        await measure(() => get(token, mark), { runs: RUNS }),
        await measure(() => b.floor(top), { runs: RUNS }),
      );
    }
  } finally {
    await b.close();
  }
  for (const line of lines) console.log(line);
}

await main();
