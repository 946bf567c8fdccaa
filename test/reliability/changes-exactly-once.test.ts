// Exactly-once changes_since (issue 20 item 11; 20-rs-api.md "Resume is exact"), as a seeded
// property on both stores through the real app. Each case registers one stream, three connections
// and a few grants (all fields or a projection, nested paths included, with or without a time
// range, all connections or some; a second client may pin connection_id), then interleaves random
// writes with clients that each follow their own bookmark a page of 1–5 at a time. Writes: new
// records; updates of visible and of hidden fields only (one field, a nested one, an object
// emptied or removed, the time field moving into and out of the range); identical re-imports;
// deletions (of the record a client read last, most of all); re-creations; several ops on one
// record in one batch; batches mostly sharing one emitted_at; a connection deleted and created
// again.
//
// The oracle (fixtures/sync-model.ts) knows nothing of versions or stamps: a write is a change for
// a grant when what the grant can observe of the record differs before and after it (existence,
// tombstone, the value at each granted path and the primary key, and the time field under a time
// range; everything for fields "all"). A client at position P must then get exactly the records it
// can see now whose last such change came after P, oldest change first, each with the emitted_at
// of that change and its data as projected now: every page is compared whole (ids, tombstones,
// emitted_at, data, has_more). So nothing repeats, nothing is skipped, and the order is the
// grant's own. Seed: PDPP_SYNC_SEED; cases per backend: PDPP_SYNC_CASES (default 40 on SQLite, 16
// on Postgres); PDPP_SYNC_TRACE=1 prints every write and page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson } from "../../src/core/canonical-json.js";
import { projectData } from "../../src/core/projection.js";
import type { IngestOp } from "../../src/store/store.js";
import { testBackends } from "../helpers/backends.js";
import { type Harness, openHarness } from "./fixtures/harness.js";
import { createRng, type Rng, seedFromEnv } from "./fixtures/prng.js";
import {
  type Client,
  type Data,
  type GrantModel,
  type Key,
  keyOf,
  manifest,
  mutate,
  observed,
  PK,
  randomGrantShape,
  randomPayload,
  World,
} from "./fixtures/sync-model.js";

const SEED = seedFromEnv("PDPP_SYNC_SEED", 20_260_520);
const T0 = Date.parse("2026-06-01T00:00:00Z");

interface Stats {
  cases: number;
  writes: number;
  ops: number;
  pages: number;
  delivered: number;
  anchorChanged: Record<string, number>;
}
async function runCase(h: Harness, rng: Rng, index: number, stats: Stats, clock: (ms: number) => void) {
  const connector = `sync-${index}`;
  await h.registerManifest(manifest(connector));
  const labels = ["A", "B", "C"];
  const conns: string[] = [];
  for (const label of labels) conns.push(await h.createConnection(connector, label));
  const live = new Set(conns);
  const grants: GrantModel[] = [];
  for (let g = 0; g < rng.int(1, 3); g++) {
    const shape = randomGrantShape(rng, conns);
    const { token } = await h.createGrant({
      client_name: "sync-test",
      purpose: "exactly once",
      streams: [
        {
          stream: "notes",
          connector_key: connector,
          connections: shape.connections,
          fields: shape.fields,
          ...(shape.since || shape.until ? { time_range: { since: shape.since, until: shape.until } } : {}),
        },
      ],
    });
    grants.push({ ...shape, token, last: new Map() });
  }
  const world = new World(grants);
  const clients: Client[] = grants.flatMap((grant) => {
    const pin = rng.chance(0.25) ? conns[0] : null;
    const out: Client[] = [{ grant, connectionId: null, mark: "beginning", position: 0, lastKey: null }];
    if (pin) out.push({ grant, connectionId: pin, mark: "beginning", position: 0, lastKey: null });
    return out;
  });
  let now = T0 + index * 3_600_000;
  clock(now);

  const read = async (client: Client) => {
    const limit = rng.int(1, 5);
    const conn = client.connectionId ? `&connection_id=${client.connectionId}` : "";
    const r = await h.request(
      `/v1/streams/notes/records?changes_since=${encodeURIComponent(client.mark)}&limit=${limit}${conn}`,
      { token: client.grant.token },
    );
    assert.equal(r.status, 200, r.text);
    const due = world.expected(client, live);
    const want = due.slice(0, limit).map(({ key, at }) => {
      const record = world.records.get(key) as { data: Data; deleted: boolean };
      const connection = key.slice(0, key.indexOf("\u0000"));
      return {
        connection_id: connection,
        record_id: key.slice(key.indexOf("\u0000") + 1),
        deleted: record.deleted,
        emitted_at: at,
        data: record.deleted
          ? record.data
          : projectData(record.data, { granted: client.grant.fields, primaryKey: PK }),
      };
    });
    const got = r.json.data.map((x: Data) => ({
      connection_id: x.connection_id,
      record_id: x.record_id,
      deleted: x.deleted === true,
      emitted_at: x.emitted_at,
      data: x.data,
    }));
    if (process.env.PDPP_SYNC_TRACE)
      console.error(
        `read ${JSON.stringify({ fields: client.grant.fields, conns: client.grant.connections, since: client.grant.since, until: client.grant.until, pin: client.connectionId, limit, got: got.map((g: Data) => [g.record_id, g.connection_id, g.deleted]) })}`,
      );
    assert.deepEqual({ page: got, has_more: r.json.has_more }, { page: want, has_more: due.length > limit });
    stats.pages += 1;
    stats.delivered += got.length;
    client.mark = r.json.next_changes_since;
    if (want.length > 0) {
      client.position = due[want.length - 1].seq;
      client.lastKey = due[want.length - 1].key;
    }
  };

  /** Count what happened to clients' last records before they follow their bookmarks. */
  const noteAnchors = (connection: string, ids: string[], kind: (key: Key, grant: GrantModel) => string) => {
    for (const c of clients) {
      if (!c.lastKey?.startsWith(`${connection}\u0000`)) continue;
      if (!ids.includes(c.lastKey.slice(c.lastKey.indexOf("\u0000") + 1))) continue;
      const k = kind(c.lastKey, c.grant);
      stats.anchorChanged[k] = (stats.anchorChanged[k] ?? 0) + 1;
    }
  };

  const write = async () => {
    const anchors = clients.flatMap((c) => (c.lastKey ? [c.lastKey] : []));
    const targetAnchor = anchors.length > 0 && rng.chance(0.5);
    const connection = targetAnchor
      ? (() => {
          const key = rng.pick(anchors);
          return key.slice(0, key.indexOf("\u0000"));
        })()
      : rng.pick([...live]);
    if (!live.has(connection)) return;
    const ops: IngestOp[] = [];
    const n = rng.int(1, 6);
    for (let i = 0; i < n; i++) {
      const anchorIds = anchors
        .filter((k) => k.startsWith(`${connection}\u0000`))
        .map((k) => k.slice(k.indexOf("\u0000") + 1));
      const id =
        targetAnchor && anchorIds.length > 0 && rng.chance(0.6) ? rng.pick(anchorIds) : `r${rng.int(0, 11)}`;
      const current = world.records.get(keyOf(connection, id));
      const roll = rng.next();
      if (roll < 0.2) ops.push({ op: "delete", data: { id } });
      else if (roll < 0.3 && current && !current.deleted)
        ops.push({ op: "upsert", data: structuredClone(current.data) });
      else if (current && !current.deleted) ops.push({ op: "upsert", data: mutate(rng, current.data) });
      else ops.push({ op: "upsert", data: randomPayload(rng, id) });
    }
    if (rng.chance(0.3)) now += rng.pick([1, 1000, 60_000]);
    clock(now);
    const at = new Date(now).toISOString();
    const before = new Map(
      ops.map((o) => [
        keyOf(connection, String(o.data.id)),
        world.records.get(keyOf(connection, String(o.data.id))),
      ]),
    );
    if (process.env.PDPP_SYNC_TRACE)
      console.error(`write ${connection} at ${new Date(now).toISOString()}: ${JSON.stringify(ops)}`);
    const result = await h.store.applyBatch(connection, "notes", ops);
    assert.deepEqual(result.rejected, []);
    for (const op of ops) world.apply(connection, op, at);
    noteAnchors(
      connection,
      ops.map((o) => String(o.data.id)),
      (key, grant) => {
        const was = before.get(key);
        const is = world.records.get(key);
        if (!was || !is || canonicalJson(was) === canonicalJson(is)) return "rewritten the same";
        if (is.deleted && !was.deleted) return "deleted";
        if (was.deleted && !is.deleted) return "re-created";
        if (observed(grant, was) === observed(grant, is)) return "hidden fields only";
        if ((grant.since || grant.until) && was.time !== is.time) return "time moved";
        return "updated";
      },
    );
    stats.writes += 1;
    stats.ops += ops.length;
  };

  for (let step = 0; step < 45; step++) {
    const roll = rng.next();
    if (roll < 0.5) await write();
    else if (roll < 0.97) await read(rng.pick(clients));
    else {
      // The last connection goes away (its records with it) and may come back later.
      const victim = conns[2];
      if (live.has(victim)) {
        noteAnchors(
          victim,
          [...world.records.keys()]
            .filter((k) => k.startsWith(`${victim}\u0000`))
            .map((k) => k.slice(k.indexOf("\u0000") + 1)),
          () => "connection deleted",
        );
        const r = await h.request(`/v1/owner/connections/${victim}`, { method: "DELETE" });
        assert.equal(r.status, 200, r.text);
        live.delete(victim);
        world.dropConnection(victim);
      } else {
        await h.store.ensureConnection(connector, labels[2]);
        live.add(victim);
      }
    }
  }
  // Every client drains what is left: the pages stop exactly at the end.
  for (const client of clients) {
    for (let i = 0; i < 200 && world.expected(client, live).length > 0; i++) await read(client);
    assert.deepEqual(world.expected(client, live), []);
    await read(client);
  }
  stats.cases += 1;
}

for (const backend of testBackends()) {
  test(`changes_since delivers every visible change exactly once on ${backend.name} (seed ${SEED}; PDPP_SYNC_SEED=… to reproduce)`, async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: T0 });
    const clock = (ms: number) => t.mock.timers.setTime(ms);
    const cases = Number(process.env.PDPP_SYNC_CASES ?? (backend.name === "sqlite" ? 40 : 16));
    const stats: Stats = { cases: 0, writes: 0, ops: 0, pages: 0, delivered: 0, anchorChanged: {} };
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      for (let i = 0; i < cases; i++) {
        const rng = createRng((SEED ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
        try {
          await runCase(h, rng, i, stats, clock);
        } catch (error) {
          console.error(`changes exactly once: failed at seed ${SEED}, case ${i} on ${backend.name}`);
          throw error;
        }
      }
    } finally {
      await opened.cleanup();
    }
    const line = `${backend.name}: seed ${SEED}, ${stats.cases} cases, ${stats.writes} write batches (${stats.ops} ops), ${stats.pages} pages compared whole, ${stats.delivered} changes delivered; last record read, then changed before the bookmark was followed: ${JSON.stringify(stats.anchorChanged)}`;
    t.diagnostic(line);
    console.log(`changes exactly once ${line}`);
  });
}
