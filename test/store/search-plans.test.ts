// Search answers do not depend on the plan a store picks: on the same data, Postgres (whose
// candidate statement walks newest-first for a dense query and asks the GIN index for a sparse
// one, search-candidates.ts) answers exactly as SQLite does — hits, scores, order, paging, recall
// and matched_estimate — over full and partial windows, hidden connections, hidden time fields,
// time ranges, and after a record's time alone changes (the lexeme row carries that time).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { StreamScope } from "../../src/core/grant.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import type { SearchResult, Store } from "../../src/store/store.js";
import { type OpenedStore, sqliteBackend, testBackends } from "../helpers/backends.js";
import { CONNECTOR, MANIFEST, MESSAGES, type Msg } from "./contract/fixtures.js";

const RECORDS = 1500;

/** Mulberry32, so both stores get the same records. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `common` in ~80% of records (so the newest rows are dense: the walk plan), `middling` in ~8% and
 * `scarce` in a handful (the GIN plan); coarse times so many tie, some null.
 */
function messages(): { a: Msg[]; b: Msg[] } {
  const rand = prng(7);
  const a: Msg[] = [];
  const b: Msg[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const words = ["alpha", "beta"];
    if (rand() < 0.8) words.push("common");
    if (rand() < 0.08) words.push("middling");
    if (rand() < 0.004) words.push("scarce");
    const day = Math.floor(rand() * 60);
    const msg: Msg = {
      message_id: `m${String(i).padStart(4, "0")}`,
      subject: rand() < 0.3 ? "common subject" : "plain subject",
      from: rand() < 0.1 ? "common@example.com" : "x@example.com",
      sent_at: rand() < 0.05 ? null : new Date(Date.UTC(2024, 0, 1 + day)).toISOString(),
      body: `Body ${i}: ${words.join(" ")} and more.`,
      secret_note: rand() < 0.5 ? "scarce middling common" : "nothing",
    };
    (rand() < 0.6 ? a : b).push(msg);
  }
  return { a, b };
}

interface World {
  opened: OpenedStore;
  store: Store;
  connA: string;
  connB: string;
}

async function load(open: () => Promise<OpenedStore>): Promise<World> {
  const opened = await open();
  const store = opened.store;
  await store.putManifest(MANIFEST);
  const connA = (await store.ensureConnection(CONNECTOR, "Mail A")).connection_id;
  const connB = (await store.ensureConnection(CONNECTOR, "Mail B")).connection_id;
  const { a, b } = messages();
  // Interleaved batches, so both connections spread over the whole id range.
  for (let i = 0; i < Math.max(a.length, b.length); i += 100) {
    await store.applyBatch(
      connA,
      "messages",
      a.slice(i, i + 100).map((data) => ({ op: "upsert", data })),
    );
    await store.applyBatch(
      connB,
      "messages",
      b.slice(i, i + 100).map((data) => ({ op: "upsert", data })),
    );
  }
  return { opened, store, connA, connB };
}

/** Only the record's time changes (its words do not): search order must follow the new time. */
async function moveTimes(world: World): Promise<void> {
  const { a } = messages();
  const moved = a.slice(-40).map((m, i) => ({
    op: "upsert" as const,
    data: { ...m, sent_at: new Date(Date.UTC(2025, 5, 1 + (i % 3))).toISOString() },
  }));
  await world.store.applyBatch(world.connA, "messages", moved);
}

function scope(world: World, options: Partial<StreamScope> = {}): StreamScope {
  return {
    connectorKey: CONNECTOR,
    stream: MESSAGES,
    connectionIds: [world.connA, world.connB].sort(),
    fields: "all",
    since: null,
    until: null,
    ...options,
  };
}

/** The answer without ingest timestamps (each store stamps its own emitted_at). */
function comparable(result: SearchResult) {
  return { ...result, hits: result.hits.map(({ emittedAt: _e, ...hit }) => hit) };
}

const backends = testBackends();
const postgres = backends.find((b) => b.name === "postgres");

describe("Postgres search plans answer exactly as SQLite", { skip: postgres ? false : "no Postgres" }, () => {
  let lite: World;
  let pg: World;
  before(async () => {
    if (!postgres) return;
    lite = await load(() => sqliteBackend.open());
    pg = await load(() => postgres.open());
    await moveTimes(lite);
    await moveTimes(pg);
  });
  after(async () => {
    await lite?.opened.cleanup();
    await pg?.opened.cleanup();
  });

  const scopes: [string, (w: World) => StreamScope][] = [
    ["everything", (w) => scope(w)],
    ["one connection", (w) => scope(w, { connectionIds: [w.connB] })],
    ["time field hidden", (w) => scope(w, { fields: ["message_id", "subject", "from", "body"] })],
    ["body only", (w) => scope(w, { fields: ["message_id", "sent_at", "body"] })],
    ["time range", (w) => scope(w, { since: "2024-01-10T00:00:00.000Z", until: "2024-02-15T00:00:00.000Z" })],
  ];
  const queries = [
    "common",
    "common alpha",
    "middling",
    "scarce",
    "comm*",
    '"alpha beta" common',
    "absent",
    "what is the scarce middling body about",
    "+middling common -scarce",
    '+common -"plain subject"',
  ];
  const windows = [
    { rankWindow: 10_000, limit: 10, offset: 0 },
    { rankWindow: 100, limit: 10, offset: 0 },
    { rankWindow: 100, limit: 25, offset: 50 },
    { rankWindow: 30, limit: 30, offset: 0 },
  ];
  for (const [name, scopeFor] of scopes) {
    test(`${name}: hits, scores, order, recall and estimates are identical`, async () => {
      let hits = 0;
      let windowed = 0;
      for (const q of queries) {
        for (const w of windows) {
          // Connection ids derive from (connector, label), so they are the same in both stores.
          const ask = (world: World) =>
            world.store.search([scopeFor(world)], { clauses: parseSearchQuery(q), conditions: [], ...w });
          const expected = comparable(await ask(lite));
          assert.deepEqual(comparable(await ask(pg)), expected, `${name} / ${q} / ${JSON.stringify(w)}`);
          hits += expected.hits.length;
          if (!expected.recall.complete) windowed++;
        }
      }
      // The comparison covered real answers, windowed ones among them.
      assert.ok(hits > 300, `only ${hits} hits compared`);
      assert.ok(windowed >= 6, `only ${windowed} windowed answers compared`);
    });
  }
});
