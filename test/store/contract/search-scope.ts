// Contract: search answers depend only on what the scope sees (issue 8 findings 2, 3, 5) — a
// manifest re-registration re-indexes before any read sees it; hidden records, hidden field values
// and hidden-only manifest changes move no hit, score, order, recall or matched_estimate.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest, StreamDef } from "../../../src/core/manifest.js";
import { parseSearchQuery } from "../../../src/core/search-query.js";
import type { SearchResult, Store } from "../../../src/store/store.js";
import type { OpenedStore, TestBackend } from "../../helpers/backends.js";
import { CONNECTOR, MANIFEST, MESSAGES } from "./fixtures.js";

const NOTES_V1: StreamDef = {
  name: "notes",
  primary_key: ["id"],
  title_field: "title",
  schema: {
    type: "object",
    properties: { id: { type: "string" }, title: { type: "string" }, private: { type: "string" } },
  },
  query: { search: ["private", "title"] },
};
const notesManifest = (search: string[]): Manifest => ({
  connector_key: "notesapp",
  display_name: "Notes",
  version: "1",
  streams: [{ ...NOTES_V1, query: { search } }],
});

/** What a caller observes of a search (emitted_at is the writer's wall clock, not data). */
function observed(result: SearchResult): unknown {
  return { ...result, hits: result.hits.map(({ emittedAt: _e, ...hit }) => hit) };
}

// Visible: connection A inside [2024-01-01, 2025-01-01). Hidden: connection B, A outside the range,
// and the secret_note field (not granted), which in the hidden world holds the query words too.
const GRANTED = ["message_id", "subject", "from", "body", "sent_at"];
const WORDS = ["alpha", "beta", "gamma", "delta"];

function visibleMessages(): Record<string, unknown>[] {
  return Array.from({ length: 24 }, (_, i) => ({
    message_id: `v${String(i).padStart(2, "0")}`,
    subject: i % 3 === 0 ? `alpha ${WORDS[i % 4]} subject` : `note ${i}`,
    from: i % 4 === 0 ? "alpha@example.com" : "someone@example.com",
    body: `body ${i} mentions ${WORDS[i % 4]} and ${WORDS[(i + 1) % 4]} ${"filler ".repeat(i % 5)}`,
    sent_at: new Date(Date.UTC(2024, 0, 1 + i * 7, i % 2)).toISOString(),
    secret_note: "nothing here",
  }));
}

function hiddenMessages(prefix: string, sentAt: (i: number) => string): Record<string, unknown>[] {
  return Array.from({ length: 30 }, (_, i) => ({
    message_id: `${prefix}${i}`,
    subject: `alpha beta gamma delta hidden ${i}`,
    from: "alpha@example.com",
    body: `alpha alpha beta beta gamma delta ${"alpha ".repeat(i)}`,
    sent_at: sentAt(i),
    secret_note: "alpha beta",
  }));
}

async function buildWorld(backend: TestBackend, withHidden: boolean) {
  const opened = await backend.open();
  const { store } = opened;
  await store.putManifest(MANIFEST);
  const a = (await store.ensureConnection(CONNECTOR, "Mail A")).connection_id;
  const b = (await store.ensureConnection(CONNECTOR, "Mail B")).connection_id;
  const visible = visibleMessages();
  const outside = hiddenMessages("old", (i) => new Date(Date.UTC(2023, 0, 1 + i)).toISOString());
  const other = hiddenMessages("b", (i) => new Date(Date.UTC(2024, 1, 1 + i)).toISOString());
  // Interleaved with the visible writes, so hidden rows sit between visible ones in id order.
  for (let i = 0; i < visible.length; i++) {
    const data = withHidden ? { ...visible[i], secret_note: "alpha beta gamma delta" } : visible[i];
    await store.applyBatch(a, "messages", [{ op: "upsert", data }]);
    if (!withHidden) continue;
    await store.applyBatch(a, "messages", [{ op: "upsert", data: outside[i] }]);
    await store.applyBatch(b, "messages", [{ op: "upsert", data: other[i] }]);
  }
  const scope: StreamScope = {
    connectorKey: CONNECTOR,
    stream: MESSAGES,
    connectionIds: [a],
    fields: GRANTED,
    since: "2024-01-01T00:00:00.000Z",
    until: "2025-01-01T00:00:00.000Z",
  };
  return { opened, store, scope };
}

export function searchScopeContract(backend: TestBackend): void {
  describe("search depends only on what the scope sees", () => {
    const opened: OpenedStore[] = [];
    after(async () => {
      for (const o of opened) await o.cleanup();
    });

    test("re-registering a manifest that drops a search field re-indexes before any read", async () => {
      const o = await backend.open();
      opened.push(o);
      const { store } = o;
      const v1 = notesManifest(["private", "title"]);
      await store.putManifest(v1);
      const conn = (await store.ensureConnection("notesapp", "Notes")).connection_id;
      await store.applyBatch(conn, "notes", [
        { op: "upsert", data: { id: "n1", title: "hello world", private: "secretword" } },
        { op: "upsert", data: { id: "n2", title: "hello again", private: "other" } },
      ]);
      const scopeFor = (m: Manifest): StreamScope => ({
        connectorKey: "notesapp",
        stream: m.streams[0],
        connectionIds: [conn],
        fields: ["id", "title"],
        since: null,
        until: null,
      });
      const find = (scope: StreamScope, q: string) =>
        store.search([scope], {
          clauses: parseSearchQuery(q),
          conditions: [],
          limit: 10,
          offset: 0,
          rankWindow: 10_000,
        });
      assert.deepEqual((await find(scopeFor(v1), "secretword")).hits, []);
      const v2 = notesManifest(["title"]);
      await store.putManifest(v2);
      for (const scope of [scopeFor(v2), scopeFor(v1)]) {
        assert.deepEqual((await find(scope, "secretword")).hits, []);
        assert.deepEqual((await find(scope, "+secretword +hello")).hits, []);
        assert.deepEqual((await find(scope, "secretword hello")).unmatched, ["secretword"]);
        const hello = await find(scope, "hello");
        assert.deepEqual(
          hello.hits.map((h) => [h.recordId, h.matchedFields]),
          [
            ["n1", ["title"]],
            ["n2", ["title"]],
          ],
        );
        // The hidden field's words count in no length: both titles are two words long.
        assert.equal(hello.hits[0].score, hello.hits[1].score);
      }
      // Adding the field back indexes it again; a grant that includes it then finds the word.
      const v3 = notesManifest(["title", "private"]);
      await store.putManifest(v3);
      const all = { ...scopeFor(v3), fields: "all" as const };
      assert.deepEqual(
        (await find(all, "secretword")).hits.map((h) => h.recordId),
        ["n1"],
      );
      // A scope still holding v2 (title only, every field of its list granted) must not match v3's private words.
      assert.deepEqual((await find({ ...scopeFor(v2), fields: "all" }, "secretword")).hits, []);
      assert.deepEqual((await find(scopeFor(v3), "secretword")).hits, []);
      // Records written after the change are indexed under the new list.
      await store.applyBatch(conn, "notes", [
        { op: "upsert", data: { id: "n3", title: "later", private: "secretword" } },
      ]);
      await store.putManifest(v2);
      assert.deepEqual((await find({ ...scopeFor(v2), fields: "all" }, "secretword")).hits, []);
      assert.deepEqual(
        (await find({ ...scopeFor(v2), fields: "all" }, "later")).hits.map((h) => h.recordId),
        ["n3"],
      );
    });

    describe("hidden records, hidden field values and hidden manifest parts change nothing visible", () => {
      let plain: Awaited<ReturnType<typeof buildWorld>>;
      let hidden: Awaited<ReturnType<typeof buildWorld>>;
      before(async () => {
        plain = await buildWorld(backend, false);
        hidden = await buildWorld(backend, true);
        opened.push(plain.opened, hidden.opened);
      });

      const queries = ["alpha", "alpha beta", '"alpha beta"', "alph*", "gamma", "delta alpha", "body"];
      const shapes = [
        { rankWindow: 10_000, limit: 10, offset: 0 },
        { rankWindow: 10_000, limit: 3, offset: 3 },
        { rankWindow: 3, limit: 10, offset: 0 },
        { rankWindow: 3, limit: 2, offset: 2 },
      ];
      const runAll = async (world: { store: Store; scope: StreamScope }) => {
        const out: unknown[] = [];
        for (const q of queries) {
          for (const shape of shapes) {
            out.push([
              q,
              shape,
              observed(
                await world.store.search([world.scope], {
                  clauses: parseSearchQuery(q),
                  conditions: [],
                  ...shape,
                }),
              ),
            ]);
          }
        }
        return out;
      };

      test("scores, order, recall and matched_estimate are identical with and without hidden data", async () => {
        const a = await runAll(plain);
        assert.deepEqual(await runAll(hidden), a);
        // The comparison is not vacuous: windows fill, estimates are given, scores differ.
        const alpha = (await plain.store.search([plain.scope], {
          clauses: parseSearchQuery("alpha"),
          conditions: [],
          limit: 100,
          offset: 0,
          rankWindow: 3,
        })) as SearchResult;
        assert.deepEqual(alpha.recall, {
          complete: false,
          rankingScope: "candidate_window",
          matchedEstimate: 16,
        });
        const full = await plain.store.search([plain.scope], {
          clauses: parseSearchQuery("alpha"),
          conditions: [],
          limit: 100,
          offset: 0,
          rankWindow: 10_000,
        });
        assert.equal(full.hits.length, 16);
        assert.ok(new Set(full.hits.map((h) => h.score)).size > 2);
      });

      test("a re-registration that changes only hidden parts changes no answer", async () => {
        const before = await runAll(hidden);
        const messages = MANIFEST.streams[0];
        const q = messages.query ?? {};
        await hidden.store.putManifest({
          ...MANIFEST,
          streams: [
            {
              ...messages,
              query: { ...q, search: ["subject", "secret_note", "from", "body", "received_at"] },
            },
          ],
        });
        const scope = {
          ...hidden.scope,
          stream: (await hidden.store.getManifest(CONNECTOR))?.streams[0] as StreamDef,
        };
        assert.deepEqual(await runAll({ store: hidden.store, scope }), before);
        await hidden.store.putManifest(MANIFEST);
        assert.deepEqual(await runAll(hidden), before);
      });
    });
  });
}
