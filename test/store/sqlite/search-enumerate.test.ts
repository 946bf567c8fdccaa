// Issue 18 (search speed): each clause's matches are enumerated with a newest-ids read, a probe past
// the limit and, within it, one read of every id (search.ts scopeClauseHits). On random worlds —
// words common and rare, updates and deletions, two connections, scopes narrowed by connection,
// time range and fields, queries with required, excluded, phrase and prefix clauses, small rank
// windows so that every branch runs — the ids and counts must be exactly what the ClauseHits
// contract (core/search-ranking.ts) asks, computed here from every visible match.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { StreamScope } from "../../../src/core/grant.js";
import { parseSearchQuery, positiveClauses } from "../../../src/core/search-query.js";
import { enumerateLimit, offerFor } from "../../../src/core/search-ranking.js";
import { SqliteDb } from "../../../src/store/sqlite/db.js";
import { scopeWhere } from "../../../src/store/sqlite/scope-sql.js";
import { scopeClauseHits } from "../../../src/store/sqlite/search.js";
import { grantedColumns } from "../../../src/store/sqlite/search-hits.js";
import { searchTable } from "../../../src/store/sqlite/search-tables.js";
import { clauseMatchExpr } from "../../../src/store/sqlite/search-text.js";
import { openSqliteStore } from "../../../src/store/sqlite/sqlite-store.js";
import type { IngestOp } from "../../../src/store/store.js";
import { createRng } from "../../reliability/fixtures/prng.js";
import { CONNECTOR, MANIFEST, MESSAGES } from "../contract/fixtures.js";

// Skewed: the first words are in most records, the last in few.
const WORDS = ["invoice", "meeting", "garden", "river", "budget", "plumber", "orange", "piano", "quokka"];
const QUERIES = [
  "invoice",
  "invoice meeting garden",
  "+meeting river",
  "budget -invoice",
  '"invoice meeting"',
  "gar* pia*",
  "quokka plumber zanzibar",
];

/** Every visible match of one clause, newest first (the join, no limit). */
function allMatches(db: SqliteDb, scope: StreamScope, expr: string): number[] {
  const table = searchTable(db, scope.connectorKey, scope.stream.name)?.name as string;
  const where = scopeWhere(scope, []);
  return db.raw
    .prepare(
      `SELECT ${table}.rowid FROM ${table} JOIN records r ON r.id = ${table}.rowid
       WHERE ${table} MATCH ? AND ${where.sql} ORDER BY ${table}.rowid DESC`,
    )
    .pluck()
    .all(expr, ...where.params) as number[];
}

/** What ClauseHits asks of one scope for a clause with these matches. */
function expected(all: number[], window: number, enumerate: number): { ids: number[]; count: number } {
  const limit1 = enumerate + 1;
  if (window >= limit1) return { ids: all.slice(0, window), count: Math.min(all.length, limit1) };
  if (all.length > enumerate) return { ids: all.slice(0, window), count: limit1 };
  return { ids: all, count: all.length };
}

test("clause enumeration gives exactly the contract's ids and counts on random worlds", async () => {
  for (const seed of [1, 2, 3]) {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-search-enumerate-"));
    const path = join(dir, "pdpp.db");
    try {
      const rng = createRng(seed);
      const store = await openSqliteStore({ path });
      await store.putManifest(MANIFEST);
      const conns = [
        (await store.ensureConnection(CONNECTOR, "A")).connection_id,
        (await store.ensureConnection(CONNECTOR, "B")).connection_id,
      ];
      const word = () => WORDS[Math.min(WORDS.length - 1, Math.floor(rng.next() ** 2 * WORDS.length))];
      const text = (n: number) => Array.from({ length: n }, word).join(" ");
      for (let b = 0; b < 12; b++) {
        const ops: IngestOp[] = [];
        for (let i = 0; i < 40; i++) {
          const id = `m${rng.int(0, 300)}`;
          ops.push(
            rng.chance(0.08)
              ? { op: "delete", data: { message_id: id } }
              : {
                  op: "upsert",
                  data: {
                    message_id: id,
                    subject: text(rng.int(0, 3)),
                    from: `${rng.pick(["alice", "bob"])}@example.com`,
                    sent_at: new Date(Date.UTC(2024, 0, 1) + rng.int(0, 365) * 86_400_000).toISOString(),
                    body: text(rng.int(1, 12)),
                  },
                },
          );
        }
        await store.applyBatch(conns[b % 2], "messages", ops);
      }
      await store.close();

      const db = new SqliteDb(path);
      const scope = (over: Partial<StreamScope>): StreamScope => ({
        connectorKey: CONNECTOR,
        stream: MESSAGES,
        connectionIds: conns,
        fields: "all",
        since: null,
        until: null,
        ...over,
      });
      const scopes = [
        scope({}),
        scope({ connectionIds: [conns[1]] }),
        scope({ since: "2024-03-01T00:00:00Z", until: "2024-10-01T00:00:00Z" }),
        scope({ fields: ["message_id", "subject", "sent_at"] }),
      ];
      let checked = 0;
      const branches = new Set<string>();
      for (const s of scopes) {
        const info = searchTable(db, CONNECTOR, "messages");
        assert.ok(info);
        const columns = grantedColumns(s, info).map((c) => c.column);
        const filter = columns.length === 4 ? null : columns;
        for (const q of QUERIES) {
          const clauses = parseSearchQuery(q);
          for (const rankWindow of [1, 2, 3, 7]) {
            const enumerate = enumerateLimit(rankWindow);
            for (const offset of [0, 2, 40, 200]) {
              const got = db.raw.transaction(() =>
                scopeClauseHits(db, s, { clauses, conditions: [], limit: 5, offset, rankWindow, enumerate }),
              )();
              const want = positiveClauses(clauses).map((c) =>
                expected(
                  allMatches(db, s, clauseMatchExpr(c, clauses, filter)),
                  offerFor(offset, rankWindow),
                  enumerate,
                ),
              );
              assert.deepEqual(got, want, `seed ${seed} q ${q} window ${rankWindow} offset ${offset}`);
              checked++;
              const window = offerFor(offset, rankWindow);
              for (const w of want) {
                if (window < w.count && w.count <= enumerate) branches.add("within the limit");
                if (window <= enumerate && w.count > enumerate) branches.add("past the limit");
                if (window > enumerate) branches.add("window past the limit");
                if (w.count < window) branches.add("fewer than the window");
              }
            }
          }
        }
      }
      db.close();
      assert.equal(checked, scopes.length * QUERIES.length * 16);
      assert.equal(branches.size, 4, [...branches].join(", "));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
