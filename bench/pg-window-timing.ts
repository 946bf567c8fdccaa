// Measures Postgres field-window reads at the start and the end of a 100 MB text field (not a test).
// Usage: PDPP_TEST_PG_URL=postgres://… npx tsx bench/pg-window-timing.ts [--mb 100]
import { performance } from "node:perf_hooks";
import type { StreamScope } from "../src/core/grant.js";
import type { Manifest } from "../src/core/manifest.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { dropTestSchema, newTestSchemaName } from "../test/helpers/pg.js";

const url = process.env.PDPP_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const mbArg = process.argv.indexOf("--mb");
const mb = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 100;

const manifest: Manifest = {
  connector_key: "bench",
  display_name: "Bench",
  version: "1",
  streams: [
    {
      name: "docs",
      primary_key: ["id"],
      schema: { type: "object", properties: { id: { type: "string" }, body: { type: "string" } } },
      text_fields: ["body"],
    },
  ],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const schema = newTestSchemaName();
const store = await openPostgresStore({ url, schema });
try {
  await store.putManifest(manifest);
  const { connection_id: connectionId } = await store.ensureConnection("bench", "bench");
  const line = "The quick brown fox jumps over the lazy dog. Ünïcödé ✓ 😀\n";
  const body = `${line.repeat(Math.ceil((mb * 1024 * 1024) / Buffer.byteLength(line)))}NEEDLEATEND`;
  let t = performance.now();
  await store.applyBatch(connectionId, "docs", [{ op: "upsert", data: { id: "big", body } }]);
  console.log(`ingest ${mb} MB field: ${(performance.now() - t).toFixed(0)} ms`);
  const scope: StreamScope = {
    connectorKey: "bench",
    stream: manifest.streams[0],
    connectionIds: [connectionId],
    fields: "all",
    since: null,
    until: null,
  };
  const ref = { connectionId, recordId: "big", path: "body" };
  const first = await store.readFieldWindow(scope, ref, { kind: "range", offsetChars: 0, limitChars: 1 });
  const size = first?.sizeChars ?? 0;
  const cases: [string, number][] = [
    ["start (offset 0)", 0],
    ["middle", Math.floor(size / 2)],
    ["end (last 4,096)", size - 4096],
  ];
  for (const [label, offset] of cases) {
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      t = performance.now();
      const w = await store.readFieldWindow(scope, ref, {
        kind: "range",
        offsetChars: offset,
        limitChars: 4096,
      });
      times.push(performance.now() - t);
      if (w?.text.length === 0) throw new Error("empty window");
    }
    console.log(
      `window 4,096 chars at ${label}: p50 ${median(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`,
    );
  }
  t = performance.now();
  const q = await store.readFieldWindow(scope, ref, {
    kind: "match",
    q: "needleatend",
    beforeChars: 64,
    afterChars: 64,
    limitChars: 139,
  });
  console.log(
    `q window, match at the very end (scans every chunk): ${(performance.now() - t).toFixed(0)} ms, match ${JSON.stringify(q?.match)}`,
  );
  console.log(
    `field: ${size.toLocaleString("en")} code points, ${Math.ceil(size / 65536)} chunks, rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`,
  );
} finally {
  await store.close();
  await dropTestSchema(url, schema);
}
