// The noninterference property (10-data-model.md, issue 8): for random world pairs W and
// W' = W + hidden changes (records in hidden connections and streams, records outside the time
// range, words in hidden fields, deletions of hidden records, manifest re-registrations that change
// only hidden parts), random grants inside the visible part and random call sequences over every
// /v1 read endpoint, every MCP tool (real SDK client) and resources/read, every answer — errors
// included — is byte-identical in both worlds once request ids are replaced and bookmarks named
// (a bookmark seals a store-wide version: a client can tell only its length and whether it equals
// another, ni-compare.ts); every cursor, bookmark and resource URI an answer hands out is followed
// in both worlds and compared again. Between reads both worlds keep being written (ni-live.ts):
// visible writes alike, the last record a changes page showed most of all (deleted, updated, moved
// out of the range, its hidden fields changed), batches sharing one emitted_at, and hidden writes
// in W' only. Both worlds share their secrets and a mocked clock, so cursors and emitted_at are
// comparable.
// Binary fields (issue 20 item 8): mail messages, drafts and chat messages carry base64 blobs of
// varying size, some longer than one range; mail:messages.scan is a binary field grants may hide.
// Hidden changes include its values (present in W' only, or other bytes), updates of it alone, and
// other bytes in hidden records. Blob reads over the RS (…/records/{id}/blob) and resources/read of
// pdpp://blob handles — handed out by fetch and query_records, or built by hand for hidden
// records and fields — follow every continuation (next_offset_bytes, next_uri) in both worlds,
// errors included, up to MAX_BLOB_CHAIN ranges a read.
// Seed: PDPP_NI_SEED. Pairs: PDPP_NI_WORLDS × PDPP_NI_GRANTS × PDPP_NI_SEQUENCES (defaults ≥ 1,000).
// Search ranks with BM25 from statistics over visible data (core/search-ranking.ts); world pairs
// draw a rank window of 3, 8 or 10,000, so worlds of a few dozen records take both plans (every
// match scored, and the rare-first candidate window with clauses past the enumeration limit), and
// queries mix optional words, stems, stopwords, +required, -excluded, prefixes and phrases.
import assert from "node:assert/strict";
import { test } from "node:test";
import { testBackends } from "../helpers/backends.js";
import {
  blobContinuation,
  type Call,
  type CallContext,
  describeCall,
  followUps,
  freshCall,
  isBlobCall,
  randomGrantBody,
} from "./fixtures/ni-calls.js";
import { BookmarkNames, firstDifference, normalize } from "./fixtures/ni-compare.js";
import { type LiveWrite, LiveWrites } from "./fixtures/ni-live.js";
import { type NiWorld, openWorld, tickTime } from "./fixtures/ni-load.js";
import { buildWorldPair, type Kind, type RecordRef, searchFixesNeeded } from "./fixtures/ni-world.js";
import { createRng, seedFromEnv } from "./fixtures/prng.js";

const SEED = seedFromEnv("PDPP_NI_SEED", 20_261_123);
const WORLDS = Number(process.env.PDPP_NI_WORLDS ?? 12);
const GRANTS = Number(process.env.PDPP_NI_GRANTS ?? 12);
const SEQUENCES = Number(process.env.PDPP_NI_SEQUENCES ?? 14);
/** Ranges followed per blob read at most (a 1-byte limit on a 50 KB blob would take 50,000). */
const MAX_BLOB_CHAIN = 12;

/**
 * Search fixes of issue 8 (findings 2, 3, 5, and T1: ties not broken by an ungranted time) that are in main. A world pair
 * whose hidden-change kinds need a fix not listed here skips its search calls (every other call is
 * still compared); PDPP_NI_ASSUME_FIXED=F2,F3,F5 turns them on to show what is still open.
 */
const SEARCH_FIXES_IN_MAIN: string[] = ["F2", "F3", "F5", "T1"];

/**
 * Hidden-change kinds that find a difference no fix addresses yet (reported, see the closing note
 * of issue 8): off by default, PDPP_NI_KINDS=all turns them on. None today: hidden_field_update
 * closed with field-path change stamps (src/core/stamps.ts).
 */
const OPEN_KINDS: Kind[] = [];

const ALL_KINDS: Kind[] = [
  "hidden_connection_records",
  "hidden_stream_records",
  "out_of_range_records",
  "hidden_field_words",
  "hidden_deletions",
  "manifest_reregistration",
  "hidden_field_update",
  "hidden_time_values",
  "hidden_binary_field",
  "hidden_binary_values",
  "hidden_binary_update",
];

const fixed = new Set([
  ...SEARCH_FIXES_IN_MAIN,
  ...(process.env.PDPP_NI_ASSUME_FIXED ?? "").split(",").filter(Boolean),
]);
const allowedKinds =
  process.env.PDPP_NI_KINDS === "all" ? ALL_KINDS : ALL_KINDS.filter((k) => !OPEN_KINDS.includes(k));

/**
 * One call in one world (its bookmark names replaced by this world's bookmarks): the normalised
 * answer text and the JSON its follow-ups come from, bookmarks named.
 */
async function run(
  world: NiWorld,
  names: BookmarkNames,
  token: string,
  named: Call,
): Promise<{ text: string; json: unknown }> {
  const call = JSON.parse(names.reveal(JSON.stringify(named))) as Call;
  return names.hide(await answer(world, token, call));
}

async function answer(world: NiWorld, token: string, call: Call): Promise<{ text: string; json: unknown }> {
  if (call.type === "http") {
    const a = await world.h.request(call.path, { token });
    return { text: `${a.status} ${normalize(a.text)}`, json: a.json };
  }
  const mcp = await world.mcp(token);
  try {
    if (call.type === "mcp") {
      const r = await mcp.call(call.tool, call.args);
      return { text: normalize(r.raw), json: r.structured };
    }
    const r = await mcp.client.readResource({ uri: call.uri });
    return { text: normalize(JSON.stringify(r)), json: r };
  } catch (error) {
    return { text: `thrown ${normalize((error as Error).message)}`, json: null };
  }
}

/** Apply a live write to both worlds (W' alone for hidden ones) at its clock tick. */
async function applyLive(
  write: LiveWrite,
  w: NiWorld,
  wp: NiWorld,
  clock: (ms: number) => void,
): Promise<void> {
  clock(tickTime(write.tick));
  for (const [world, batch] of [
    [w, write.w],
    [wp, write.wPrime],
  ] as const) {
    if (!batch) continue;
    const result = await world.store.applyBatch(world.conns[batch.connection], batch.stream, batch.ops);
    if (result.rejected.length > 0)
      throw new Error(`live batch rejected: ${JSON.stringify(result.rejected)}`);
  }
  if (write.dropInPrime) await wp.store.deleteConnection(wp.conns[write.dropInPrime]);
}

/** The last record of a changes page (HTTP or query_records), as a record reference. */
// biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON
function lastChange(call: Call, json: any, conns: Record<string, string>) {
  const changes =
    (call.type === "http" && call.path.includes("changes_since=")) ||
    (call.type === "mcp" && call.tool === "query_records" && "changes_since" in call.args);
  const list = Array.isArray(json?.data) ? json.data : json?.data?.data;
  const last = changes && Array.isArray(list) ? list.at(-1) : undefined;
  const connection = Object.keys(conns).find((k) => conns[k] === last?.connection_id);
  if (!last || !connection) return null;
  return {
    connection: connection as RecordRef["connection"],
    stream: String(last.stream),
    recordId: String(last.record_id),
  };
}

for (const backend of testBackends()) {
  test(`noninterference property on ${backend.name} (seed ${SEED}; PDPP_NI_SEED=… to reproduce)`, async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: Date.parse("2026-01-01T00:00:00Z") });
    const failures: string[] = [];
    const stats = {
      pairs: 0,
      calls: 0,
      followed: 0,
      live: {} as Record<string, number>,
      searchSkippedWorlds: 0,
      byKind: {} as Record<string, number>,
      // Blob reads: first ranges, continuations followed, error answers, chains cut at the cap.
      blob: { reads: 0, continued: 0, errors: 0, capped: 0 },
    };
    const isError = (text: string) => /^(?:[45]\d\d |thrown )/.test(text);
    for (let wi = 0; wi < WORLDS; wi++) {
      const rng = createRng((SEED ^ Math.imul(wi + 1, 0x9e3779b1)) >>> 0);
      const pair = buildWorldPair(rng, { allowedKinds });
      for (const k of pair.kinds) stats.byKind[k] = (stats.byKind[k] ?? 0) + 1;
      const needs = [...new Set(pair.kinds.flatMap((k) => searchFixesNeeded(k, backend.name)))];
      const search = needs.every((n) => fixed.has(n));
      if (!search) stats.searchSkippedWorlds += 1;
      const clock = (ms: number) => t.mock.timers.setTime(ms);
      const w = await openWorld(backend, { steps: pair.w, rankWindow: pair.rankWindow, clock });
      const wp = await openWorld(backend, {
        steps: pair.wPrime,
        rankWindow: pair.rankWindow,
        clock,
        secretsOf: w,
      });
      // Writes between reads: what and when come from generators of their own.
      const live = new LiveWrites(pair, createRng((SEED ^ Math.imul(wi + 1, 0x27d4eb2f)) >>> 0));
      const when = createRng((SEED ^ Math.imul(wi + 1, 0x165667b1)) >>> 0);
      const write = async (made: LiveWrite | null) => {
        if (!made) return;
        await applyLive(made, w, wp, clock);
        stats.live[made.kind] = (stats.live[made.kind] ?? 0) + 1;
      };
      try {
        for (let g = 0; g < GRANTS; g++) {
          const body = randomGrantBody(rng, { hide: pair.hide, conns: w.conns });
          const token = await w.grant(body, wp);
          const ctx: CallContext = {
            rng,
            conns: w.conns,
            refs: pair.refs,
            search,
            granted: body.streams as CallContext["granted"],
          };
          for (let s = 0; s < SEQUENCES; s++) {
            stats.pairs += 1;
            const pending: Call[] = [];
            const names = [new BookmarkNames(), new BookmarkNames()];
            // One or two fresh calls, and mostly the cursors, bookmarks and URIs they hand out.
            const length = rng.int(1, 4);
            for (let step = 0; step < length; step++) {
              const follow = pending.length > 0 && rng.chance(0.75);
              const call = follow ? pending.splice(rng.int(0, pending.length - 1), 1)[0] : freshCall(ctx);
              if (when.chance(0.15)) await write(live.next());
              const differs = (c: Call, a: { text: string }, b: { text: string }) => {
                if (a.text === b.text) return false;
                failures.push(
                  `[seed ${SEED}, world pair #${wi} kinds=${pair.kinds.join(",")} hide=${JSON.stringify(pair.hide)} rank_window=${pair.rankWindow}, grant #${g} ${JSON.stringify(body)}, sequence #${s} step ${step}] ${describeCall(c)}\n${firstDifference(a.text, b.text)}`,
                );
                return true;
              };
              const [a, b] = [await run(w, names[0], token, call), await run(wp, names[1], token, call)];
              stats.calls += 1;
              if (follow) stats.followed += 1;
              if (differs(call, a, b)) break;
              // A blob read goes on to its end, range by range, in both worlds.
              let range = blobContinuation(call, a.json);
              let blobDiffers = false;
              if (isBlobCall(call)) {
                stats.blob.reads += 1;
                if (isError(a.text)) stats.blob.errors += 1;
              }
              for (let n = 0; range && !blobDiffers; n++) {
                if (n === MAX_BLOB_CHAIN) {
                  stats.blob.capped += 1;
                  break;
                }
                const [ra, rb] = [
                  await run(w, names[0], token, range),
                  await run(wp, names[1], token, range),
                ];
                stats.calls += 1;
                stats.followed += 1;
                stats.blob.continued += 1;
                blobDiffers = differs(range, ra, rb);
                range = blobContinuation(range, ra.json);
              }
              if (blobDiffers) break;
              pending.push(...followUps(call, a.json, a.text));
              // Most pages of changes see their last record changed before the bookmark is followed.
              const last = lastChange(call, a.json, w.conns);
              if (last && when.chance(0.6)) await write(live.targeted(last));
            }
          }
        }
      } finally {
        await w.close();
        await wp.close();
      }
    }
    const line = `${backend.name}: seed ${SEED}, ${stats.pairs} (W, W', grant, call sequence) pairs over ${WORLDS} world pairs, ${stats.calls} calls compared (${stats.followed} followed cursors/bookmarks/URIs), blob reads ${JSON.stringify(stats.blob)}, search skipped in ${stats.searchSkippedWorlds} world pairs (fixes in main: ${[...fixed].join(",") || "none"}), kinds ${JSON.stringify(stats.byKind)}, writes between reads ${JSON.stringify(stats.live)}`;
    t.diagnostic(line);
    console.log(`noninterference ${line}`);
    assert.equal(failures.length, 0, `${failures.length} differences:\n${failures.slice(0, 8).join("\n\n")}`);
    if (WORLDS * GRANTS * SEQUENCES >= 1000) assert.ok(stats.pairs >= 1000, `only ${stats.pairs} pairs`);
  });
}
