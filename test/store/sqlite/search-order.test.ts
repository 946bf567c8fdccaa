// SQLite search order against an in-test oracle of core/search-ranking.ts: the window (newest
// rankWindow visible matches by insertion), the granted-field coverage score and the tie order
// (time desc with nulls last, connection, record id). The store takes shortcuts for common terms
// (a top score level, a walk of the time index from the k newest rows, a top-k sort), each meant
// to be exact on any data; small pages and windows make every shortcut run, on times that follow
// insertion order and on shuffled times with duplicates and nulls.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest } from "../../../src/core/manifest.js";
import { parseSearchQuery } from "../../../src/core/search-query.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../../src/store/store.js";

const CONNECTOR = "orderbench";
const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma"];
const SEARCH = ["title", "body", "tag"];
// Enough notes that common words match more than the 1,024 rows below which the store skips the walk.
const NOTES = 3000;

const MANIFEST: Manifest = {
  connector_key: CONNECTOR,
  display_name: "Order",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      time_field: "at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          title: { type: "string" },
          body: { type: "string" },
          tag: { type: "string" },
        },
      },
      query: { search: SEARCH },
    },
  ],
};
const STREAM = MANIFEST.streams[0];

interface Note {
  id: string;
  connection: string;
  at: string | null;
  title: string;
  body: string;
  tag: string;
  /** Insertion order (the store's rowid order), set when written. */
  seq: number;
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (rand: () => number, n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");

function makeNotes(shuffledTimes: boolean, connections: string[]): Note[] {
  const rand = prng(shuffledTimes ? 7 : 3);
  const base = Date.UTC(2024, 0, 1);
  return Array.from({ length: NOTES }, (_, i) => {
    let at: string | null = new Date(base + i * 60_000).toISOString();
    if (shuffledTimes) {
      const r = rand();
      // Times unrelated to insertion, a few shared by several notes, some missing.
      at = r < 0.1 ? null : new Date(base + Math.floor(rand() * 300) * 60_000).toISOString();
    }
    return {
      id: `n${String(i).padStart(3, "0")}`,
      connection: connections[i % 3 === 0 ? 1 : 0],
      at,
      title: words(rand, 2),
      body: words(rand, 4),
      tag: rand() < 0.5 ? WORDS[Math.floor(rand() * 2)] : "none",
      seq: -1,
    };
  });
}

const tokenCache = new WeakMap<Note, Map<string, Set<string>>>();
const tokens = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What core/search-ranking.ts says the store returns. */
function oracle(
  notes: Note[],
  q: string[],
  opts: { scope: StreamScope; rankWindow: number; limit: number; offset: number },
) {
  const { scope } = opts;
  const fields =
    scope.fields === "all" ? SEARCH : SEARCH.filter((f) => (scope.fields as string[]).includes(f));
  const showsTime = scope.fields === "all" || (scope.fields as string[]).includes("at");
  const visible = notes.filter(
    (n) =>
      scope.connectionIds.includes(n.connection) &&
      (!scope.since || (n.at !== null && n.at >= scope.since)) &&
      (!scope.until || (n.at !== null && n.at < scope.until)),
  );
  const inField = (n: Note, f: string) => {
    let fields = tokenCache.get(n);
    if (!fields) {
      fields = new Map(SEARCH.map((name) => [name, tokens(n[name as "title" | "body" | "tag"])]));
      tokenCache.set(n, fields);
    }
    return fields.get(f) as Set<string>;
  };

  const matches = visible
    .filter((n) => q.every((w) => fields.some((f) => inField(n, f).has(w))))
    .sort((a, b) => b.seq - a.seq);
  const window = matches.slice(0, opts.rankWindow);
  const ranked = window
    .map((n) => ({
      n,
      score: fields.filter((f) => q.some((w) => inField(n, f).has(w))).length,
      time: showsTime ? n.at : null,
    }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        (a.time === b.time ? 0 : a.time === null ? 1 : b.time === null ? -1 : a.time < b.time ? 1 : -1) ||
        compareBytes(a.n.connection, b.n.connection) ||
        compareBytes(a.n.id, b.n.id),
    );
  return {
    hits: ranked.slice(opts.offset, opts.offset + opts.limit).map((r) => `${r.n.id}:${r.score}`),
    hasMore: window.length > opts.offset + opts.limit,
  };
}

for (const shuffled of [false, true]) {
  describe(`search order matches the oracle (${shuffled ? "shuffled times, ties, nulls" : "times in insertion order"})`, () => {
    let dir = "";
    let store: Store;
    let notes: Note[] = [];
    let connections: string[] = [];
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "pdpp-search-order-"));
      store = await openSqliteStore({ path: join(dir, "pdpp.db") });
      await store.putManifest(MANIFEST);
      connections = [
        (await store.ensureConnection(CONNECTOR, "A")).connection_id,
        (await store.ensureConnection(CONNECTOR, "B")).connection_id,
      ];
      notes = makeNotes(shuffled, connections);
      // Batches of 50 consecutive notes, one applyBatch per connection: rowids follow that order.
      let seq = 0;
      for (let i = 0; i < notes.length; i += 50) {
        for (const connection of connections) {
          const batch = notes.slice(i, i + 50).filter((n) => n.connection === connection);
          for (const n of batch) n.seq = seq++;
          await store.applyBatch(
            connection,
            "notes",
            batch.map((n) => ({
              op: "upsert" as const,
              data: { id: n.id, at: n.at, title: n.title, body: n.body, tag: n.tag },
            })),
          );
        }
      }
    });
    after(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const scopes = (): [string, StreamScope][] => {
      const all: StreamScope = {
        connectorKey: CONNECTOR,
        stream: STREAM,
        connectionIds: [...connections].sort(),
        fields: "all",
        since: null,
        until: null,
      };
      return [
        ["every connection", all],
        ["one connection", { ...all, connectionIds: [connections[0]] }],
        ["a time range", { ...all, since: "2024-01-01T00:05:00.000Z", until: "2024-01-01T05:00:00.000Z" }],
        ["tag not granted", { ...all, fields: ["id", "at", "title", "body"] }],
        ["time not granted", { ...all, fields: ["id", "title", "body", "tag"] }],
      ];
    };

    test("every page of every query, scope, window and page size", async () => {
      let compared = 0;
      for (const q of ["alpha", "beta gamma", "omega", "alpha beta", "sigma delta"]) {
        for (const [label, scope] of scopes()) {
          for (const rankWindow of [10_000, 60]) {
            for (const [limit, offset] of [
              [1, 0],
              [3, 0],
              [10, 0],
              [5, 5],
              [20, 40],
            ]) {
              const got = await store.search([scope], {
                terms: parseSearchQuery(q),
                conditions: [],
                limit,
                offset,
                rankWindow,
              });
              const want = oracle(notes, q.split(" "), { scope, rankWindow, limit, offset });
              const where = `${q} / ${label} / window ${rankWindow} / limit ${limit} offset ${offset}`;
              assert.deepEqual(
                got.hits.map((h) => `${h.recordId}:${h.score}`),
                want.hits,
                where,
              );
              assert.equal(got.hasMore, want.hasMore, where);
              compared++;
            }
          }
        }
      }
      assert.equal(compared, 5 * 5 * 2 * 5);
    });
  });
}
