// Grant-leak property test (40-quality.md, reliability 1): random grants × random calls of every
// read endpoint; hidden values carry sentinel tags that must never appear, and every count, sum,
// hit set and page set must equal what the grant's model says is visible. Seed: PDPP_LEAK_SEED.
import assert from "node:assert/strict";
import { test } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { openHarness } from "./fixtures/harness.js";
import { KnownIssueTally } from "./fixtures/known-issues.js";
import {
  aggregateCase,
  foreignCursorCase,
  ownerRouteCase,
  schemaCase,
  searchCase,
  tokenCase,
} from "./fixtures/leak-calls-query.js";
import { changesCase, listCase, recordCase, windowCase } from "./fixtures/leak-calls-records.js";
import { buildDataset, loadDataset } from "./fixtures/leak-dataset.js";
import { GrantModel, randomGrant } from "./fixtures/leak-model.js";
import { type LeakContext, type LeakStats, makeContext } from "./fixtures/leak-runner.js";
import { createRng, seedFromEnv } from "./fixtures/prng.js";

const SEED = seedFromEnv("PDPP_LEAK_SEED", 20_240_601);
const GRANTS = 40;
const CALLS_PER_GRANT = 55;
const WAVE = 4;

const CASES: [string, number, (ctx: LeakContext) => Promise<void>][] = [
  ["list", 20, listCase],
  ["changes", 6, changesCase],
  ["record", 14, recordCase],
  ["window", 14, windowCase],
  ["aggregate", 14, aggregateCase],
  ["search", 18, searchCase],
  ["schema", 8, schemaCase],
  ["token", 2, tokenCase],
  ["owner", 2, ownerRouteCase],
  ["foreign_cursor", 6, foreignCursorCase],
];
const TOTAL_WEIGHT = CASES.reduce((n, [, w]) => n + w, 0);

function pickCase(roll: number): [string, (ctx: LeakContext) => Promise<void>] {
  let left = roll * TOTAL_WEIGHT;
  for (const [name, weight, fn] of CASES) {
    left -= weight;
    if (left < 0) return [name, fn];
  }
  return [CASES[0][0], CASES[0][2]];
}

for (const backend of testBackends()) {
  test(`grant leak property test on ${backend.name} (seed ${SEED}; PDPP_LEAK_SEED=… to reproduce)`, async (t) => {
    const opened = await backend.open();
    try {
      // Every match ranked, so paging reaches the whole hit set the model predicts.
      const h = await openHarness(opened.store, { searchRankWindow: 10_000 });
      const ds = buildDataset(createRng(SEED));
      await loadDataset(h, ds);
      const stats: LeakStats = { cases: 0, requests: 0, byKind: {}, byStatus: {}, nonEmpty: 0 };
      const failures: string[] = [];
      const known = new KnownIssueTally();
      // Coverage of the shared-name and time-edge cases (printed, and asserted non-zero below).
      const coverage = { sharedNameGrants: 0, boundOnRecordTime: 0 };
      const recordTimes = new Set(ds.records.map((r) => r.time).filter((t): t is number => t !== null));
      // Grants run in waves of WAVE concurrent workers (the in-process app is latency-bound on
      // Postgres). Each grant has its own seeded PRNG and replays cursors only from earlier waves,
      // so a run is reproducible from the seed alone.
      let pool: string[] = [];
      for (let first = 0; first < GRANTS; first += WAVE) {
        const wave = Array.from({ length: Math.min(WAVE, GRANTS - first) }, (_, i) => first + i);
        const pools = await Promise.all(
          wave.map(async (g) => {
            const rng = createRng((SEED ^ Math.imul(g + 1, 0x9e3779b1)) >>> 0);
            const model = new GrantModel(ds, randomGrant(rng, ds));
            if (model.scopes("messages").length > 1) coverage.sharedNameGrants += 1;
            const onRecord = (t: number | null) => t !== null && recordTimes.has(t);
            if (model.spec.some((s) => onRecord(s.since) || onRecord(s.until)))
              coverage.boundOnRecordTime += 1;
            const { grantId, token } = await h.createGrant(model.grantBody());
            const cursorPool = [...pool];
            const ctx = makeContext({ h, ds, model, token, grantId, rng, cursorPool, stats });
            for (let c = 0; c < CALLS_PER_GRANT; c++) {
              const [name, fn] = pickCase(rng.next());
              try {
                await fn(ctx);
              } catch (error) {
                // Keep going: one run reports every distinct failure, each with what reproduces it.
                const grant = JSON.stringify(model.grantBody());
                const failure = `[seed ${SEED}, grant #${g} ${grant}, case #${c} ${name}] ${(error as Error).message}`;
                if (!known.tolerate(failure)) failures.push(failure);
              }
              stats.cases += 1;
              stats.byKind[name] = (stats.byKind[name] ?? 0) + 1;
            }
            return cursorPool.slice(pool.length);
          }),
        );
        pool = [...pool, ...pools.flat()].slice(-300);
      }
      const line = `${backend.name}: seed ${SEED}, ${stats.cases} cases, ${JSON.stringify(coverage)}, ${stats.requests} requests (${stats.nonEmpty} non-empty 200s), statuses ${JSON.stringify(stats.byStatus)}, cases ${JSON.stringify(stats.byKind)}`;
      t.diagnostic(line);
      console.log(`grant-leak ${line}`);
      for (const k of known.lines()) {
        t.diagnostic(k);
        console.log(`grant-leak ${backend.name}: ${k}`);
      }
      assert.ok(stats.cases >= 2000, `only ${stats.cases} cases`);
      assert.ok(coverage.sharedNameGrants > 0 && coverage.boundOnRecordTime > 0, JSON.stringify(coverage));
      assert.equal(
        failures.length,
        0,
        `${failures.length} failing cases:\n${failures.slice(0, 12).join("\n\n")}`,
      );
    } finally {
      await opened.cleanup();
    }
  });
}
