// Postgres search_df (migration 15): per (stream, connection, field-tagged term), how many lexeme
// rows hold the term. A search reads it only to skip counting a clause's matches to limit + 1, so
// it must stay exactly the aggregate of search_lex through inserts, updates, deletes, a manifest
// that changes the search fields (re-index) and a connection's deletion; and the statement that
// trusts it must return the rows and counts the counting statement returns.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type pg from "pg";
import type { StreamScope } from "../../src/core/grant.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import { enumerateLimit, offerFor } from "../../src/core/search-ranking.js";
import {
  type ClauseHitRow,
  type ClausePlan,
  clauseHitsSql,
  clausePlan,
  matchBoundsSql,
} from "../../src/store/postgres/search-candidates.js";
import type { SearchQuery, Store } from "../../src/store/store.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import { CONNECTOR, MANIFEST, MESSAGES, type Msg } from "./contract/fixtures.js";

const postgres = testBackends().find((b) => b.name === "postgres");

function poolOf(store: Store): pg.Pool {
  return (store as unknown as { pool: pg.Pool }).pool;
}

/** search_df as it is, and as search_lex says it should be (zero counts left out). */
async function counts(pool: pg.Pool): Promise<{ kept: string[]; truth: string[] }> {
  const kept = await pool.query<{ k: string }>(
    `SELECT stream || ' ' || lexeme || ' ' || connection_id || ' ' || n AS k FROM search_df WHERE n <> 0
     ORDER BY 1`,
  );
  const truth = await pool.query<{ k: string }>(
    `SELECT stream || ' ' || u.lexeme || ' ' || connection_id || ' ' || count(*) AS k
     FROM search_lex l CROSS JOIN LATERAL unnest(l.tsv) u GROUP BY stream, u.lexeme, connection_id ORDER BY 1`,
  );
  return { kept: kept.rows.map((r) => r.k), truth: truth.rows.map((r) => r.k) };
}

async function assertExact(store: Store, when: string): Promise<void> {
  const { kept, truth } = await counts(poolOf(store));
  assert.ok(truth.length > 0 || when === "after the connections were deleted", `${when}: no rows at all`);
  assert.deepEqual(kept, truth, `search_df is exact ${when}`);
}

function msg(i: number, words: string): Msg {
  return {
    message_id: `m${i}`,
    subject: i % 3 === 0 ? `common ${words}` : "plain",
    from: "x@example.com",
    sent_at: new Date(Date.UTC(2024, 0, 1 + (i % 50))).toISOString(),
    body: `Body ${i}: ${words}`,
    secret_note: i % 2 === 0 ? "common secret" : "nothing",
  };
}

describe("Postgres search_df", { skip: postgres ? false : "no Postgres" }, () => {
  let opened: OpenedStore;
  let store: Store;
  let connA: string;
  let connB: string;

  before(async () => {
    opened = await (postgres as NonNullable<typeof postgres>).open();
    store = opened.store;
    await store.putManifest(MANIFEST);
    connA = (await store.ensureConnection(CONNECTOR, "Mail A")).connection_id;
    connB = (await store.ensureConnection(CONNECTOR, "Mail B")).connection_id;
  });
  after(async () => {
    await opened?.cleanup();
  });

  test("stays the aggregate of the lexeme rows through every write", async () => {
    const words = (i: number) => (i % 4 === 0 ? "common rare" : i % 5 === 0 ? "common plumbers" : "common");
    await store.applyBatch(
      connA,
      "messages",
      Array.from({ length: 300 }, (_, i) => ({ op: "upsert" as const, data: msg(i, words(i)) })),
    );
    await store.applyBatch(
      connB,
      "messages",
      Array.from({ length: 200 }, (_, i) => ({ op: "upsert" as const, data: msg(1000 + i, words(i)) })),
    );
    await assertExact(store, "after inserts");
    // Updates that change words (and one that repeats the same record twice in a batch).
    await store.applyBatch(connA, "messages", [
      ...Array.from({ length: 50 }, (_, i) => ({
        op: "upsert" as const,
        data: msg(i, "changed words only"),
      })),
      { op: "upsert" as const, data: msg(7, "twice first") },
      { op: "upsert" as const, data: msg(7, "twice second") },
    ]);
    await assertExact(store, "after updates");
    await store.applyBatch(
      connB,
      "messages",
      Array.from({ length: 40 }, (_, i) => ({ op: "delete" as const, data: { message_id: `m${1000 + i}` } })),
    );
    await assertExact(store, "after deletes");
    // A manifest dropping a search field re-indexes the stream; adding it back does again.
    const narrow = { ...MESSAGES, query: { ...MESSAGES.query, search: ["subject", "body"] } };
    await store.putManifest({ ...MANIFEST, version: "2", streams: [narrow] });
    await assertExact(store, "after a manifest narrowed the search fields");
    const { kept } = await counts(poolOf(store));
    assert.ok(!kept.some((k) => k.includes("secret_note:")), "no counts of an unindexed field");
    await store.putManifest({ ...MANIFEST, version: "3" });
    await assertExact(store, "after a manifest widened them again");
    assert.equal(await store.deleteConnection(connB), true);
    await assertExact(store, "after a connection was deleted");
  });

  test("the statement that trusts the counts returns what the counting one returns", async () => {
    const pool = poolOf(store);
    const { rows: conns } = await pool.query<{ connection_id: string }>(
      "SELECT connection_id FROM connections ORDER BY connection_id",
    );
    const scope: StreamScope = {
      connectorKey: CONNECTOR,
      stream: MESSAGES,
      connectionIds: conns.map((c) => c.connection_id),
      fields: "all",
      since: null,
      until: null,
    };
    const taken = new Set<ClausePlan>();
    for (const q of [
      "common",
      "common rare",
      "rare plumber",
      "secret common nothing",
      "+common rare",
      "zzz",
    ]) {
      for (const [rankWindow, offset] of [
        [5, 0],
        [5, 12],
        [10, 0],
        // "common" fills no field's count to 301 but the fields' sum passes it: the counting plan.
        [15, 0],
        [100, 0],
      ]) {
        const query: SearchQuery = {
          clauses: parseSearchQuery(q),
          conditions: [],
          limit: 10,
          offset,
          rankWindow,
        };
        const limit1 = enumerateLimit(rankWindow) + 1;
        const offer = offerFor(offset, rankWindow);
        const floor = matchBoundsSql([scope], query);
        const bounds = floor
          ? (await pool.query<{ key: string; floor: string; ceiling: string }>(floor.sql, floor.values)).rows
          : [];
        const plans = new Map(
          bounds.map((r) => [
            r.key,
            clausePlan({ floor: Number(r.floor), ceiling: Number(r.ceiling) }, limit1),
          ]),
        );
        for (const plan of plans.values()) taken.add(plan);
        const read = async (chosen: Map<string, ClausePlan>) => {
          const statement = clauseHitsSql([scope], query, { limit1, offer, plans: chosen });
          if (statement === null) return [];
          const { rows } = await pool.query<ClauseHitRow>(statement.sql, statement.values);
          // As search.ts reads them: ids in row order, the count clamped to limit + 1.
          return rows.map((r) => `${r.scope}/${r.clause} ${r.rid} ${Math.min(Number(r.n), limit1)}`);
        };
        assert.deepEqual(await read(plans), await read(new Map()), `${q} at ${rankWindow}/${offset}`);
      }
    }
    assert.deepEqual([...taken].sort(), ["capped", "count", "none", "sparse"], "every plan was taken");
  });
});
