// Grant-leak property test over the six MCP tools and the two resource templates (SDK Client ↔ pdpp
// server over InMemoryTransport, RS in process): the same sentinel dataset and grant model as
// grant-leak.test.ts, plus resource handles minted under another grant and replayed here.
import assert from "node:assert/strict";
import { test } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { openHarness } from "./fixtures/harness.js";
import { KnownIssueTally } from "./fixtures/known-issues.js";
import { buildDataset, loadDataset } from "./fixtures/leak-dataset.js";
import { GrantModel, randomGrant } from "./fixtures/leak-model.js";
import { type LeakStats, makeContext } from "./fixtures/leak-runner.js";
import { connectMcp } from "./fixtures/mcp-client.js";
import {
  mcpAggregate,
  mcpFetch,
  mcpQueryRecords,
  mcpReadField,
  mcpSchema,
  mcpSearch,
} from "./fixtures/mcp-leak-calls.js";
import { type McpResourceContext, mcpResource, mintDonorUris } from "./fixtures/mcp-resource-calls.js";
import { createRng, seedFromEnv } from "./fixtures/prng.js";

const SEED = seedFromEnv("PDPP_LEAK_SEED", 20_240_601);
const GRANTS = 16;
const CALLS_PER_GRANT = 40;
const TOOLS: [string, (ctx: McpResourceContext) => Promise<void>][] = [
  ["resources/read", mcpResource],
  ["query_records", mcpQueryRecords],
  ["search", mcpSearch],
  ["aggregate", mcpAggregate],
  ["schema", mcpSchema],
  ["fetch", mcpFetch],
  ["read_record_field", mcpReadField],
];

for (const backend of testBackends()) {
  test(`MCP grant leak property test on ${backend.name} (seed ${SEED})`, async (t) => {
    const opened = await backend.open();
    try {
      // Every match ranked, so paging reaches the whole hit set the model predicts.
      const h = await openHarness(opened.store, { searchRankWindow: 10_000 });
      const ds = buildDataset(createRng(SEED));
      await loadDataset(h, ds);
      const donorUris = await mintDonorUris(h, { ds, rng: createRng(SEED ^ 0x5bd1e995) });
      const stats: LeakStats = { cases: 0, requests: 0, byKind: {}, byStatus: {}, nonEmpty: 0 };
      const failures: string[] = [];
      const known = new KnownIssueTally();
      await Promise.all(
        [0, 1, 2, 3].map(async (worker) => {
          for (let g = worker; g < GRANTS; g += 4) {
            const rng = createRng((SEED ^ Math.imul(g + 101, 0x85ebca6b)) >>> 0);
            const model = new GrantModel(ds, randomGrant(rng, ds));
            const { grantId, token } = await h.createGrant(model.grantBody());
            const mcp = await connectMcp(h, token);
            const base = makeContext({ h, ds, model, token, grantId, rng, cursorPool: [], stats });
            const ctx: McpResourceContext = Object.assign(base, { mcp, donorUris });
            for (let c = 0; c < CALLS_PER_GRANT; c++) {
              const [name, fn] = rng.pick(TOOLS);
              try {
                await fn(ctx);
              } catch (error) {
                const failure = `[seed ${SEED}, grant #${g} ${JSON.stringify(model.grantBody())}, call #${c}] ${(error as Error).message}`;
                if (!known.tolerate(failure)) failures.push(failure);
              }
              stats.cases += 1;
              stats.byKind[name] = (stats.byKind[name] ?? 0) + 1;
            }
            await mcp.close();
          }
        }),
      );
      const line = `${backend.name}: seed ${SEED}, ${stats.cases} MCP cases, ${stats.requests} tool calls and resource reads (${donorUris.length} donor URIs), ${JSON.stringify(stats.byKind)}, resource outcomes ${JSON.stringify(stats.byStatus)}`;
      t.diagnostic(line);
      console.log(`mcp-leak ${line}`);
      for (const k of known.lines()) console.log(`mcp-leak ${backend.name}: ${k}`);
      assert.equal(
        failures.length,
        0,
        `${failures.length} failing cases:\n${failures.slice(0, 10).join("\n\n")}`,
      );
    } finally {
      await opened.cleanup();
    }
  });
}
