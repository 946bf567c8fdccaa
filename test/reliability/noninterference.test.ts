// The noninterference property (10-data-model.md, issue 8): for random world pairs W and
// W' = W + hidden changes (records in hidden connections and streams, records outside the time
// range, words in hidden fields, deletions of hidden records, manifest re-registrations that change
// only hidden parts), random grants inside the visible part and random call sequences over every
// /v1 read endpoint, every MCP tool (real SDK client) and resources/read, every answer — errors
// included — is byte-identical in both worlds once request ids are replaced; every cursor,
// bookmark and resource URI an answer hands out is followed in both worlds and compared again.
// Both worlds share their secrets and a mocked clock, so cursors and emitted_at are comparable.
// Seed: PDPP_NI_SEED. Pairs: PDPP_NI_WORLDS × PDPP_NI_GRANTS × PDPP_NI_SEQUENCES (defaults ≥ 1,000).
// Search ranks with BM25 from statistics over visible data (core/search-ranking.ts); world pairs
// draw a rank window of 3, 8 or 10,000, so worlds of a few dozen records take both plans (every
// match scored, and the rare-first candidate window with clauses past the enumeration limit), and
// queries mix optional words, stems, stopwords, +required, -excluded, prefixes and phrases.
import assert from "node:assert/strict";
import { test } from "node:test";
import { testBackends } from "../helpers/backends.js";
import {
  type Call,
  type CallContext,
  describeCall,
  followUps,
  freshCall,
  randomGrantBody,
} from "./fixtures/ni-calls.js";
import { firstDifference, normalize } from "./fixtures/ni-compare.js";
import { type NiWorld, openWorld } from "./fixtures/ni-load.js";
import { buildWorldPair, type Kind, searchFixesNeeded } from "./fixtures/ni-world.js";
import { createRng, seedFromEnv } from "./fixtures/prng.js";

const SEED = seedFromEnv("PDPP_NI_SEED", 20_261_123);
const WORLDS = Number(process.env.PDPP_NI_WORLDS ?? 12);
const GRANTS = Number(process.env.PDPP_NI_GRANTS ?? 12);
const SEQUENCES = Number(process.env.PDPP_NI_SEQUENCES ?? 14);

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
];

const fixed = new Set([
  ...SEARCH_FIXES_IN_MAIN,
  ...(process.env.PDPP_NI_ASSUME_FIXED ?? "").split(",").filter(Boolean),
]);
const allowedKinds =
  process.env.PDPP_NI_KINDS === "all" ? ALL_KINDS : ALL_KINDS.filter((k) => !OPEN_KINDS.includes(k));

/** One call in one world: its normalised answer text and the JSON its follow-ups come from. */
async function run(world: NiWorld, token: string, call: Call): Promise<{ text: string; json: unknown }> {
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
    return { text: normalize(JSON.stringify(r)), json: null };
  } catch (error) {
    return { text: `thrown ${normalize((error as Error).message)}`, json: null };
  }
}

for (const backend of testBackends()) {
  test(`noninterference property on ${backend.name} (seed ${SEED}; PDPP_NI_SEED=… to reproduce)`, async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: Date.parse("2026-01-01T00:00:00Z") });
    const failures: string[] = [];
    const stats = {
      pairs: 0,
      calls: 0,
      followed: 0,
      searchSkippedWorlds: 0,
      byKind: {} as Record<string, number>,
    };
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
      try {
        for (let g = 0; g < GRANTS; g++) {
          const body = randomGrantBody(rng, { hide: pair.hide, conns: w.conns });
          const token = await w.grant(body, wp);
          const ctx: CallContext = { rng, conns: w.conns, refs: pair.refs, search };
          for (let s = 0; s < SEQUENCES; s++) {
            stats.pairs += 1;
            const pending: Call[] = [];
            // One or two fresh calls, and mostly the cursors, bookmarks and URIs they hand out.
            const length = rng.int(1, 4);
            for (let step = 0; step < length; step++) {
              const follow = pending.length > 0 && rng.chance(0.75);
              const call = follow ? pending.splice(rng.int(0, pending.length - 1), 1)[0] : freshCall(ctx);
              const [a, b] = [await run(w, token, call), await run(wp, token, call)];
              stats.calls += 1;
              if (follow) stats.followed += 1;
              if (a.text !== b.text) {
                failures.push(
                  `[seed ${SEED}, world pair #${wi} kinds=${pair.kinds.join(",")} hide=${JSON.stringify(pair.hide)} rank_window=${pair.rankWindow}, grant #${g} ${JSON.stringify(body)}, sequence #${s} step ${step}] ${describeCall(call)}\n${firstDifference(a.text, b.text)}`,
                );
                break;
              }
              pending.push(...followUps(call, a.json, a.text));
            }
          }
        }
      } finally {
        await w.close();
        await wp.close();
      }
    }
    const line = `${backend.name}: seed ${SEED}, ${stats.pairs} (W, W', grant, call sequence) pairs over ${WORLDS} world pairs, ${stats.calls} calls compared (${stats.followed} followed cursors/bookmarks/URIs), search skipped in ${stats.searchSkippedWorlds} world pairs (fixes in main: ${[...fixed].join(",") || "none"}), kinds ${JSON.stringify(stats.byKind)}`;
    t.diagnostic(line);
    console.log(`noninterference ${line}`);
    assert.equal(failures.length, 0, `${failures.length} differences:\n${failures.slice(0, 8).join("\n\n")}`);
    if (WORLDS * GRANTS * SEQUENCES >= 1000) assert.ok(stats.pairs >= 1000, `only ${stats.pairs} pairs`);
  });
}
