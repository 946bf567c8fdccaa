// Identical search on both stores, as a property: seeded random worlds (records with stemmed
// variants, stopwords, diacritics, words of other scripts, updates and deletes, two connections),
// random scopes (connections, fields, time ranges) and random queries (optional words, +required,
// -excluded, phrases, prefixes, questions) give the same hits, in the same order, with the same
// scores, recall and unmatched terms on SQLite and Postgres. Seed: PDPP_SEARCH_ID_SEED.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { StreamScope } from "../../src/core/grant.js";
import { parseSearchQuery } from "../../src/core/search-query.js";
import type { SearchResult, Store } from "../../src/store/store.js";
import { type OpenedStore, sqliteBackend, testBackends } from "../helpers/backends.js";
import { createRng, type Rng, seedFromEnv } from "../reliability/fixtures/prng.js";
import { CONNECTOR, MANIFEST, MESSAGES } from "./contract/fixtures.js";

const SEED = seedFromEnv("PDPP_SEARCH_ID_SEED", 18_042);
const WORLDS = Number(process.env.PDPP_SEARCH_ID_WORLDS ?? 4);
const QUERIES = Number(process.env.PDPP_SEARCH_ID_QUERIES ?? 60);

const VOCAB = [
  "orbit",
  "orbits",
  "orbiting",
  "invoice",
  "invoices",
  "Invoiced",
  "plumber",
  "plumbers",
  "happy",
  "happiness",
  "skies",
  "sky",
  "café",
  "cafe",
  "naïve",
  "Straße",
  "東京",
  "ΟΔΟΣ",
  "x2",
  "2024",
  "repair",
  "budget",
  "the",
  "and",
  "about",
  "what",
];
const OPERATORS = ["", "", "", "+", "-"];

function text(rng: Rng, min: number, max: number): string {
  return Array.from({ length: rng.int(min, max) }, () => rng.pick(VOCAB)).join(rng.pick([" ", ", ", " - "]));
}

function query(rng: Rng): string {
  const n = rng.int(1, 12);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const word = rng.pick(VOCAB);
    const r = rng.next();
    if (r < 0.1) parts.push(`${word.slice(0, 3)}*`);
    else if (r < 0.18) parts.push(`"${word} ${rng.pick(VOCAB)}"`);
    else parts.push(`${rng.pick(OPERATORS)}${word}`);
  }
  if (rng.chance(0.1)) parts.push("absentword");
  return parts.join(" ");
}

interface World {
  opened: OpenedStore;
  store: Store;
  conns: string[];
}

async function load(open: () => Promise<OpenedStore>, seed: number): Promise<World> {
  const rng = createRng(seed);
  const opened = await open();
  const store = opened.store;
  await store.putManifest(MANIFEST);
  const conns = [
    (await store.ensureConnection(CONNECTOR, "A")).connection_id,
    (await store.ensureConnection(CONNECTOR, "B")).connection_id,
  ];
  const count = rng.int(20, 160);
  for (let batch = 0; batch < 4; batch++) {
    for (const conn of conns) {
      const ops = Array.from({ length: Math.ceil(count / 8) }, () => {
        const id = `m${rng.int(0, count)}`;
        if (rng.chance(0.08)) return { op: "delete" as const, data: { message_id: id } };
        return {
          op: "upsert" as const,
          data: {
            message_id: id,
            subject: text(rng, 1, 5),
            from: rng.pick(["alice@example.com", "bob@example.com"]),
            body: text(rng, 0, 40),
            secret_note: text(rng, 0, 6),
            sent_at: rng.chance(0.1) ? null : new Date(Date.UTC(2024, 0, rng.int(1, 40))).toISOString(),
          },
        };
      });
      await store.applyBatch(conn, "messages", ops);
    }
  }
  return { opened, store, conns };
}

function scopeFor(rng: Rng, world: World): StreamScope {
  const fields = rng.pick([
    "all" as const,
    ["message_id", "subject", "body", "sent_at"],
    ["message_id", "body"],
    ["message_id", "subject", "from", "secret_note"],
  ]);
  const ranged = rng.chance(0.3);
  return {
    connectorKey: CONNECTOR,
    stream: MESSAGES,
    connectionIds: rng.pick([world.conns, [world.conns[0]], [world.conns[1]]]),
    fields,
    since: ranged ? "2024-01-05T00:00:00.000Z" : null,
    until: ranged ? "2024-02-01T00:00:00.000Z" : null,
  };
}

/** The answer without ingest timestamps (each store stamps its own emitted_at). */
function comparable(result: SearchResult) {
  return { ...result, hits: result.hits.map(({ emittedAt: _e, ...hit }) => hit) };
}

const postgres = testBackends().find((b) => b.name === "postgres");

describe("search answers are identical on SQLite and Postgres", {
  skip: postgres ? false : "no Postgres",
}, () => {
  for (let w = 0; w < WORLDS; w++) {
    describe(`world ${w} (seed ${SEED}; PDPP_SEARCH_ID_SEED=… to reproduce)`, () => {
      let lite: World;
      let pg: World;
      const worldSeed = (SEED ^ Math.imul(w + 1, 0x9e3779b1)) >>> 0;
      before(async () => {
        if (!postgres) return;
        lite = await load(() => sqliteBackend.open(), worldSeed);
        pg = await load(() => postgres.open(), worldSeed);
      });
      after(async () => {
        await lite?.opened.cleanup();
        await pg?.opened.cleanup();
      });
      test("same hits, order, scores, recall and unmatched terms", async () => {
        const rng = createRng(worldSeed + 1);
        let hits = 0;
        let windowed = 0;
        for (let i = 0; i < QUERIES; i++) {
          const q = query(rng);
          const scopeRng = createRng(worldSeed + 2 + i);
          const ask = {
            clauses: parseSearchQuery(q),
            conditions: [],
            limit: rng.int(1, 20),
            offset: rng.pick([0, 0, 0, 3]),
            rankWindow: rng.pick([1, 3, 250]),
          };
          // The same scope draw for both stores (connection ids derive from connector and label).
          const a = comparable(await lite.store.search([scopeFor(scopeRng, lite)], ask));
          const b = comparable(await pg.store.search([scopeFor(createRng(worldSeed + 2 + i), pg)], ask));
          assert.deepEqual(b, a, `world ${w} query ${i} ${JSON.stringify(q)} ${JSON.stringify(ask)}`);
          hits += a.hits.length;
          if (!a.recall.complete) windowed++;
        }
        assert.ok(hits > QUERIES, `only ${hits} hits compared`);
        assert.ok(windowed > 0, "no windowed answer compared");
      });
    });
  }
});
