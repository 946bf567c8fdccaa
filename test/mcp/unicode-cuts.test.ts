// No result cuts a character in two (issue 20 item 5): records whose every text is astral
// characters (two UTF-16 units each) behind a 0–3 unit prefix, so every cut a renderer makes lands
// once on each side of a surrogate pair, read through every tool over the SDK client on both
// stores. Every string of both channels must be well-formed UTF-16, and no text may print a
// lone-surrogate escape (`\ud83d`).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { mcpOnStore, type OnStore } from "./fixtures/on-store.js";
import { type Channels, call, isWellFormedText } from "./helpers.js";

const ASTRAL = ["😀", "🎉", "𝄞", "🇫🇷", "👩‍💻"];
/** `n` astral code points (flags and ZWJ sequences among them) behind `k` ASCII units. */
function astral(k: number, n: number, seed = 0): string {
  let out = "a".repeat(k);
  let points = 0;
  for (let i = seed; points < n; i++) {
    const ch = ASTRAL[i % ASTRAL.length];
    out += ch;
    points += [...ch].length;
  }
  return out;
}

const M: Manifest = {
  connector_key: "astral",
  display_name: "Astral 😀",
  version: "1",
  streams: [
    {
      name: "posts",
      primary_key: ["id"],
      time_field: "sent_at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          title: { type: "string" },
          from: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string" },
          note: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
      text_fields: ["body"],
      query: {
        search: ["title", "body", "note"],
        exact_filters: ["from"],
        range_filters: { sent_at: ["gte"] },
        aggregations: { group_by: ["from"], count_distinct: ["from"], max: ["from"] },
      },
    },
    {
      // No text field: fetch falls back to the record's JSON, cut at 4,096 chars.
      name: "blobs",
      primary_key: ["id"],
      schema: {
        type: "object",
        properties: { id: { type: "string" }, meta: { type: "object" } },
      },
      query: { search: [] },
    },
  ],
};

const LONE = /\\u[dD][89abAB][0-9a-fA-F]{2}/;

/** Every string in both channels is well-formed; no text shows an escaped surrogate. */
function assertWellFormed(r: Channels, what: string): void {
  for (const c of r.content) {
    for (const s of [c.text, c.uri]) {
      if (s === undefined) continue;
      assert.ok(isWellFormedText(s), `${what}: content holds a lone surrogate`);
      assert.doesNotMatch(s, LONE, `${what}: content prints a surrogate escape`);
    }
  }
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "string")
      assert.ok(isWellFormedText(v), `${what}: structured ${path} has a lone surrogate`);
    else if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(r.structured, "$");
}

for (const backend of testBackends()) {
  describe(`astral characters at every cut point (issue 20 item 5, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let world: OnStore;
    let cid: string;
    before(async () => {
      opened = await backend.open();
      world = await mcpOnStore(opened.store, [M]);
      cid = (await opened.store.ensureConnection("astral", "Émoji 😀 account")).connection_id;
      const posts = [];
      for (let k = 0; k < 4; k++) {
        for (const size of [30, 200, 3000, 20_000]) {
          posts.push({
            op: "upsert" as const,
            data: {
              id: `p${k}-${size}`,
              title: astral(k, size >= 3000 ? 260 : 40, k),
              from: astral(k, 70 + size / 100, k + 1),
              sent_at: `2024-01-0${k + 1}T10:00:00Z`,
              body: `${astral(k, size / 2, k)} walnut ${astral(k, size / 2, k + 2)}`,
              note: `${astral(k, 90, k)} walnut ${astral(k, 90, k)}`,
              tags: Array.from({ length: 40 }, (_, i) => astral(k + (i % 2), 30)),
            },
          });
        }
      }
      await opened.store.applyBatch(cid, "posts", posts);
      await opened.store.applyBatch(
        cid,
        "blobs",
        Array.from({ length: 4 }, (_, k) => ({
          op: "upsert" as const,
          data: { id: `b${k}`, meta: { text: astral(k, 5000), more: astral(k + 1, 900) } },
        })),
      );
    });
    after(async () => opened.cleanup());

    test("schema, query_records at every page size and projection", async () => {
      assertWellFormed(await call(world.client, "schema", {}), "schema");
      assertWellFormed(await call(world.client, "schema", { stream: "posts" }), "schema(posts)");
      for (const limit of [1, 2, 3, 5, 16, 25, 100]) {
        for (const fields of [undefined, ["body"], ["title", "note"], ["tags"]]) {
          const r = await call(world.client, "query_records", {
            stream: "posts",
            limit,
            ...(fields ? { fields } : {}),
          });
          assert.equal(r.isError, false, r.text);
          assertWellFormed(r, `query_records limit ${limit} fields ${fields}`);
        }
      }
      assertWellFormed(await call(world.client, "query_records", { stream: "blobs" }), "query_records blobs");
    });

    test("search at every limit; fetch of every hit; aggregate keys", async () => {
      for (const limit of [1, 3, 10, 16, 100]) {
        const r = await call(world.client, "search", { query: "walnut", limit });
        assert.equal(r.isError, false, r.text);
        assertWellFormed(r, `search limit ${limit}`);
      }
      const all = await call(world.client, "search", { query: "walnut", limit: 100 });
      for (const hit of all.structured.results as { id: string }[]) {
        assertWellFormed(await call(world.client, "fetch", { id: hit.id }), `fetch ${hit.id}`);
        assertWellFormed(
          await call(world.client, "fetch", { id: hit.id, fields: ["tags"] }),
          `fetch tags ${hit.id}`,
        );
      }
      for (let k = 0; k < 4; k++) {
        assertWellFormed(await call(world.client, "fetch", { id: `${cid}/blobs:b${k}` }), `fetch blob ${k}`);
      }
      for (const limit of [1, 5, 16, 100]) {
        const r = await call(world.client, "aggregate", {
          stream: "posts",
          metric: "count",
          group_by: "from",
          limit,
        });
        assert.equal(r.isError, false, r.text);
        assertWellFormed(r, `aggregate limit ${limit}`);
      }
      assertWellFormed(
        await call(world.client, "aggregate", { stream: "posts", metric: "max", field: "from" }),
        "aggregate max",
      );
    });

    test("read_record_field windows at odd offsets and limits; error messages echoing input", async () => {
      const id = `${cid}/posts:p1-3000`;
      for (const [offset, limit] of [
        [0, 1],
        [1, 3],
        [7, 100],
        [1499, 5],
      ]) {
        assertWellFormed(
          await call(world.client, "read_record_field", {
            id,
            field_path: "body",
            offset_chars: offset,
            limit_chars: limit,
          }),
          `window ${offset}+${limit}`,
        );
      }
      assertWellFormed(
        await call(world.client, "read_record_field", {
          id,
          field_path: "body",
          q: "walnut",
          limit_chars: 11,
        }),
        "q window",
      );
      assertWellFormed(
        await call(world.client, "read_record_field", {
          id,
          field_path: "tags",
          offset_chars: 3,
          limit_chars: 9,
        }),
        "json window",
      );
      for (let k = 0; k < 4; k++) {
        const bad = await call(world.client, "query_records", {
          stream: "posts",
          filter: [{ field: "sent_at", op: "gte", value: astral(k, 80) }],
        });
        assert.equal(bad.isError, true);
        assertWellFormed(bad, `time error ${k}`);
        const field = await call(world.client, "query_records", { stream: "posts", fields: [astral(k, 80)] });
        assert.equal(field.isError, true);
        assertWellFormed(field, `fields error ${k}`);
      }
    });
  });
}
