// Change stamps in the store (issue 8): for random histories of creations, updates of hidden or
// granted fields (several per batch too), deletions and recreations, a projected scope's changes
// feed is every record once, in strictly increasing observed version; paging it in small pages
// (windows over the version axis) gives exactly the one-page answer; each row's observed version
// and emitted_at are those of its last visible change; and a history that differs only in hidden
// fields gives the same feed for that scope.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StreamScope } from "../../src/core/grant.js";
import type { Manifest, StreamDef } from "../../src/core/manifest.js";
import type { IngestOp, Store } from "../../src/store/store.js";
import { testBackends } from "../helpers/backends.js";

const STREAM: StreamDef = {
  name: "notes",
  primary_key: ["id"],
  schema: {
    type: "object",
    properties: {
      id: { type: "string" },
      title: { type: "string" },
      body: { type: "string" },
      secret: { type: "string" },
      meta: { type: "object", properties: { tag: { type: "string" }, hidden: { type: "integer" } } },
    },
  },
  text_fields: ["body", "secret"],
};
const MANIFEST: Manifest = { connector_key: "notes", display_name: "Notes", version: "1", streams: [STREAM] };

function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

/** A random history; `hiddenNoise` adds writes that change only hidden fields. */
function history(seed: number, hiddenNoise: boolean): IngestOp[][] {
  const r = rng(seed);
  const noise = rng(seed ^ 0x5bd1e995);
  const state = new Map<string, Record<string, unknown> | null>();
  const batches: IngestOp[][] = [];
  for (let b = 0; b < 40; b++) {
    const ops: IngestOp[] = [];
    for (let k = 0; k < 1 + r(4); k++) {
      const id = `n${r(12)}`;
      const cur = state.get(id);
      const roll = r(10);
      let next: Record<string, unknown> | null;
      if (!cur || roll === 0)
        next = { id, title: `t${r(5)}`, body: `b${r(3)}`, secret: "s0", meta: { tag: "x", hidden: 0 } };
      else if (roll === 1) next = null;
      else if (roll < 6) next = { ...cur, title: `t${r(5)}` };
      else if (roll < 8) next = { ...cur, meta: { ...(cur.meta as object), tag: `g${r(3)}` } };
      else next = { ...cur, body: `b${r(3)}` };
      if (next === null) ops.push({ op: "delete", data: { id } });
      else ops.push({ op: "upsert", data: next });
      state.set(id, next);
      if (hiddenNoise && next !== null && noise(3) === 0) {
        // Same visible values, other hidden ones (a text field and a nested path).
        const h = {
          ...next,
          secret: `s${noise(1000)}`,
          meta: { ...(next.meta as object), hidden: noise(1000) },
        };
        ops.push({ op: "upsert", data: h });
        state.set(id, h);
      }
    }
    batches.push(ops);
  }
  return batches;
}

async function load(store: Store, batches: IngestOp[][], clock: (i: number) => void) {
  await store.putManifest(MANIFEST);
  const conn = await store.ensureConnection("notes", "Notes");
  for (const [i, ops] of batches.entries()) {
    clock(i);
    await store.applyBatch(conn.connection_id, "notes", ops);
  }
  return conn.connection_id;
}

const scopeOf = (connectionId: string, fields: string[] | "all"): StreamScope => ({
  connectorKey: "notes",
  stream: STREAM,
  connectionIds: [connectionId],
  fields,
  since: null,
  until: null,
});

async function feed(store: Store, scope: StreamScope, limit: number) {
  const out: { id: string; at: string; deleted: boolean; version: number; data: unknown }[] = [];
  let after = 0;
  for (let i = 0; i < 500; i++) {
    const page = await store.listChanges([scope], { afterVersion: after, limit });
    for (const r of page.records)
      out.push({ id: r.recordId, at: r.emittedAt, deleted: r.deleted, version: r.version, data: r.data });
    after = page.lastVersion;
    if (!page.hasMore) break;
  }
  return out;
}

for (const backend of testBackends()) {
  describe(`store change stamps (${backend.name})`, () => {
    it("projected feeds: ordered, pageable, and blind to hidden-only writes", async (t) => {
      for (const seed of [1, 2, 3, 4]) {
        const worlds = [];
        for (const noise of [false, true]) {
          const opened = await backend.open();
          try {
            t.mock.timers.enable({ apis: ["Date"], now: 0 });
            const conn = await load(opened.store, history(seed, noise), (i) =>
              t.mock.timers.setTime(Date.parse("2026-01-01T00:00:00Z") + i * 1000),
            );
            t.mock.timers.reset();
            const views: Record<string, unknown> = {};
            for (const fields of [["title"], ["meta.tag", "body"], ["meta"], "all"] as (string[] | "all")[]) {
              const scope = scopeOf(conn, fields);
              const whole = await feed(opened.store, scope, 1000);
              const versions = whole.map((r) => r.version);
              assert.deepEqual(
                versions,
                [...versions].sort((a, b) => a - b),
                `seed ${seed} ${fields}`,
              );
              assert.equal(new Set(versions).size, versions.length);
              assert.equal(new Set(whole.map((r) => r.id)).size, whole.length, "each record once");
              for (const limit of [1, 2, 3, 7])
                assert.deepEqual(await feed(opened.store, scope, limit), whole);
              // Old-format bookmarks: resume before every change observed at or after their anchor's
              // emitted_at (at least once), never after any of them.
              for (const r of whole) {
                const at = await opened.store.changesPositionBefore([scope], r.at);
                const next = await opened.store.listChanges([scope], { afterVersion: at, limit: 1 });
                assert.equal(next.records[0]?.recordId, whole.find((x) => x.at >= r.at)?.id);
              }
              // Versions differ between worlds (store-wide); what the client sees must not.
              views[JSON.stringify(fields)] = whole.map(({ version: _, ...rest }) => rest);
            }
            worlds.push(views);
          } finally {
            await opened.cleanup();
          }
        }
        for (const key of ['["title"]', '["meta.tag","body"]'])
          assert.deepEqual(worlds[1][key], worlds[0][key], `seed ${seed} ${key}`);
        assert.notDeepEqual(worlds[1]['"all"'], worlds[0]['"all"']);
      }
    });
  });
}
