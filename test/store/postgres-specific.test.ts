// Postgres-only behaviour of the store: schema isolation, migrations under concurrency, the pool's
// search_path, UTF8 code points, and tsvector/bucket details the shared contract cannot see.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { StreamScope } from "../../src/core/grant.js";
import type { Manifest } from "../../src/core/manifest.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import { bucketKey } from "../../src/core/time-buckets.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import type { Store, TimeGranularity } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";

const url = pgTestUrl();

const manifest: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      time_field: "at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          title: { type: "string" },
          body: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          n: { type: "number" },
        },
      },
      text_fields: ["body"],
      query: {
        search: ["title", "body", "tags"],
        exact_filters: ["tags"],
        range_filters: { n: ["gte", "lt"] },
        aggregations: { group_by: ["tags"], group_by_time: ["at"], sum: ["n"] },
      },
    },
  ],
};

function scopeOf(connectionIds: string[], fields: string[] | "all" = "all"): StreamScope {
  return {
    connectorKey: "notes",
    stream: manifest.streams[0],
    connectionIds,
    fields,
    since: null,
    until: null,
  };
}

describe("postgres store specifics", { skip: url ? false : "PDPP_TEST_PG_URL not set" }, () => {
  const schema = newTestSchemaName();
  let store: Store;
  let connectionId: string;

  before(async () => {
    store = await openPostgresStore({ url: url as string, schema, poolSize: 3 });
    await store.putManifest(manifest);
    connectionId = (await store.ensureConnection("notes", "me")).connection_id;
  });
  after(async () => {
    await store?.close();
    if (url) await dropTestSchema(url, schema);
  });

  test("the database is UTF8 and every migration is recorded once", async () => {
    const client = new pg.Client({ connectionString: url as string });
    await client.connect();
    try {
      const enc = await client.query("SELECT current_setting('server_encoding') AS e");
      assert.equal(enc.rows[0].e, "UTF8");
      const rows = await client.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      assert.deepEqual(
        rows.rows.map((r) => r.version),
        MIGRATIONS.map((m) => m.version),
      );
      const publicTables = await client.query(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'records'",
        [schema],
      );
      assert.equal(publicTables.rows[0].n, 1);
    } finally {
      await client.end();
    }
  });

  test("concurrent opens of one schema migrate exactly once", async () => {
    const other = newTestSchemaName();
    const opened = await Promise.allSettled(
      [1, 2, 3].map(() => openPostgresStore({ url: url as string, schema: other })),
    );
    const stores = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    try {
      assert.equal(stores.length, 3, "every concurrent open succeeds");
      const client = new pg.Client({ connectionString: url as string });
      await client.connect();
      const rows = await client.query(`SELECT count(*)::int AS n FROM "${other}".schema_migrations`);
      await client.end();
      assert.equal(rows.rows[0].n, MIGRATIONS.length);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await dropTestSchema(url as string, other);
    }
  });

  test("two schemas are isolated from each other", async () => {
    const other = newTestSchemaName();
    const second = await openPostgresStore({ url: url as string, schema: other });
    try {
      assert.deepEqual(await second.listConnections(), []);
      assert.equal((await store.listConnections()).length, 1);
    } finally {
      await second.close();
      await dropTestSchema(url as string, other);
    }
  });

  test("every pooled connection sees the schema (more parallel reads than pool slots)", async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => store.getConnection(connectionId)));
    assert.ok(results.every((c) => c?.connection_id === connectionId));
  });

  test("a bad schema name is refused before any SQL", async () => {
    await assert.rejects(
      openPostgresStore({ url: url as string, schema: 'x"; DROP TABLE y; --' }),
      /schema name/,
    );
  });

  test("windows count code points across a chunk boundary (astral characters)", async () => {
    // 65,535 ASCII then emoji: the emoji sits at code points 65,535..65,539, across chunks 0 and 1.
    const body = `${"a".repeat(65535)}😀😁😂😃😄tail`;
    const result = await store.applyBatch(connectionId, "notes", [
      { op: "upsert", data: { id: "big", at: "2024-03-01T00:00:00Z", title: "Big", body } },
    ]);
    assert.deepEqual(result, { added: 1, updated: 0, unchanged: 0, deleted: 0, rejected: [] });
    const scope = scopeOf([connectionId]);
    const w = await store.readFieldWindow(
      scope,
      { connectionId, recordId: "big", path: "body" },
      { kind: "range", offsetChars: 65534, limitChars: 4 },
    );
    assert.equal(w?.text, "a😀😁😂");
    assert.equal(w?.sizeChars, 65544);
    const m = await store.readFieldWindow(
      scope,
      { connectionId, recordId: "big", path: "body" },
      { kind: "match", q: "😂😃", beforeChars: 1, afterChars: 2, limitChars: 5 },
    );
    assert.deepEqual(m?.match, { startChars: 65537, endChars: 65539 });
    assert.equal(m?.text, "😁😂😃😄t");
  });

  test("q windows: matches across chunk boundaries, Kelvin sign and long s, LIKE syntax, near misses", async () => {
    const conn = (await store.ensureConnection("notes", "qwin")).connection_id;
    const x = (n: number) => "x".repeat(n);
    const docs: Record<string, string> = {
      span: `${x(65530)}NeedleX${x(10)}`, // "needle" at 65,530..65,536, across chunks 0 and 1
      fold: `${x(70000)} \u017f\u212ay ${x(5)}`, // ſKy (long s, Kelvin sign) folds to "sky"
      like: `${x(66000)}a%b_c\\d${x(3)}`, // LIKE syntax in q is literal text
      near: `${x(10)}x%${x(65600)}\u00c9%${x(3)}`, // "x%" passes the ILIKE superset for "é%"; only "É%" matches
    };
    await store.applyBatch(
      conn,
      "notes",
      Object.entries(docs).map(([id, body]) => ({ op: "upsert" as const, data: { id, body } })),
    );
    const scope = scopeOf([conn]);
    const find = async (id: string, q: string) =>
      (
        await store.readFieldWindow(
          scope,
          { connectionId: conn, recordId: id, path: "body" },
          { kind: "match", q, beforeChars: 1, afterChars: 1, limitChars: 2 + [...q].length },
        )
      )?.match ?? null;
    assert.deepEqual(await find("span", "needle"), { startChars: 65530, endChars: 65536 });
    assert.deepEqual(await find("fold", "SKY"), { startChars: 70001, endChars: 70004 });
    assert.deepEqual(await find("like", "A%B_C\\D"), { startChars: 66000, endChars: 66007 });
    assert.deepEqual(await find("like", "a_b"), null);
    assert.deepEqual(await find("near", "\u00e9%"), { startChars: 65612, endChars: 65614 });
    assert.deepEqual(await find("near", "zz"), null);
  });

  test("a record whose distinct words pass 512 KiB is still found by words in different parts", async () => {
    const conn = (await store.ensureConnection("notes", "lex")).connection_id;
    const words = Array.from({ length: 60000 }, (_, i) => `w${i}x`);
    await store.applyBatch(conn, "notes", [
      { op: "upsert", data: { id: "wide", title: "Wide", body: words.join(" ") } },
      { op: "upsert", data: { id: "narrow", title: "Narrow w0x", body: "only one" } },
    ]);
    const client = new pg.Client({ connectionString: url as string });
    await client.connect();
    const parts = await client.query(
      `SELECT l.parts FROM "${schema}".search_lex l JOIN "${schema}".records r USING (rid)
       WHERE r.record_id = 'wide' AND l.part = 0`,
    );
    await client.end();
    assert.ok(parts.rows[0].parts > 1);
    const run = async (q: string) =>
      (
        await store.search([scopeOf([conn])], {
          clauses: parseSearchQuery(q),
          conditions: [],
          limit: 10,
          offset: 0,
          rankWindow: 100,
        })
      ).hits.map((h) => h.recordId);
    assert.deepEqual(await run("+w0x +w59999x"), ["wide"]);
    assert.deepEqual((await run("w0x w59999x")).sort(), ["narrow", "wide"]);
    assert.deepEqual((await run("w0x")).sort(), ["narrow", "wide"]);
    assert.deepEqual(await run("+w0x +nothere"), []);
    assert.deepEqual(await run("w0x -w59999x"), ["narrow"]);
  });

  test("a NUL character is rejected per op, not a failed batch", async () => {
    const result = await store.applyBatch(connectionId, "notes", [
      { op: "upsert", data: { id: "nul", title: "a\u0000b" } },
      { op: "upsert", data: { id: "ok", title: "fine" } },
    ]);
    assert.equal(result.added, 1);
    assert.deepEqual(
      result.rejected.map((r) => r.index),
      [0],
    );
  });

  test("search tokens are pdpp's own: marks stay inside words, tsquery syntax is inert", async () => {
    await store.applyBatch(connectionId, "notes", [
      { op: "upsert", data: { id: "mark", title: "cafe\u0301 & 'quoted' :* <->", tags: ["x"] } },
    ]);
    const scope = scopeOf([connectionId]);
    const hit = await store.search([scope], {
      clauses: parseSearchQuery("cafe\u0301"),
      conditions: [],
      limit: 10,
      offset: 0,
      rankWindow: 100,
    });
    assert.deepEqual(
      hit.hits.map((h) => h.recordId),
      ["mark"],
    );
    const quoted = await store.search([scope], {
      clauses: parseSearchQuery("quot*"),
      conditions: [],
      limit: 10,
      offset: 0,
      rankWindow: 100,
    });
    assert.deepEqual(
      quoted.hits.map((h) => h.recordId),
      ["mark"],
    );
  });

  test("group_by_time keys equal core bucketKey across DST changes and ISO week-years", async () => {
    const times = [
      "2024-03-31T00:59:59.000Z", // Paris 01:59 CET, just before the spring change
      "2024-03-31T01:00:00.000Z", // Paris 03:00 CEST
      "2024-10-27T00:30:00.000Z", // Paris 02:30 CEST (first pass)
      "2024-10-27T01:30:00.000Z", // Paris 02:30 CET (second pass)
      "2024-12-30T12:00:00.000Z", // ISO week 2025-W01
      "2021-01-03T23:30:00.000Z", // ISO week 2020-W53 (UTC), 2021-W01 in Asia/Tokyo
      "2023-12-31T23:30:00.000Z", // a new year in Paris, not in UTC
    ];
    const dst = (await store.ensureConnection("notes", "dst")).connection_id;
    await store.applyBatch(
      dst,
      "notes",
      times.map((at, i) => ({ op: "upsert" as const, data: { id: `t${i}`, at } })),
    );
    const granularities: TimeGranularity[] = ["minute", "hour", "day", "week", "month", "quarter", "year"];
    for (const timeZone of ["Europe/Paris", "Asia/Tokyo", "America/St_Johns", "UTC"]) {
      for (const granularity of granularities) {
        const result = await store.aggregate([scopeOf([dst])], {
          metric: "count",
          conditions: [],
          groupByTime: { field: "at", granularity, timeZone },
          limit: 100,
        });
        const expected = new Map<string, number>();
        for (const t of times) {
          const key = bucketKey(t, granularity, timeZone);
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        const keys = [...expected.keys()].sort();
        assert.deepEqual(
          result.groups,
          keys.map((key) => ({ key, value: expected.get(key) })),
          `${timeZone} ${granularity}`,
        );
      }
    }
  });
});
