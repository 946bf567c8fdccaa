// Ladder entries tell the truth (issue 20 item 9), on both stores: a text preview's entry carries
// its field's declared MIME type; a search snippet's entry names the range of the field the
// snippet shows (in a later chunk of a long text too), never 0/0; a fallback title built from the
// import time (the grant hides the time field) says it is the import time.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hashToken, newGrantId, newToken } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { CHUNK_CHARS } from "../../src/core/text-chunks.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import { type OpenedStore, sqliteBackend, testBackends } from "../helpers/backends.js";
import { mcpOnStore, type OnStore } from "./fixtures/on-store.js";
import { BASE_URL, createClient } from "./fixtures/world.js";
import { call } from "./helpers.js";

const NOTES: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      time_field: "written_at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          written_at: { type: "string", format: "date-time" },
          body: { type: "string", contentMediaType: "text/plain" },
          summary: { type: "string", contentMediaType: "text/markdown" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
      text_fields: ["body"],
      query: { search: ["body", "summary", "tags"] },
    },
  ],
};

const filler = (n: number) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
const LONG = `${filler(CHUNK_CHARS + 900)} far needle here ${filler(3000)}`;
const SUMMARY = `${filler(2500)} near walnut mention ${filler(200)}`;

interface Entry {
  id: string;
  field: { path: string; mime_type?: string; size_chars?: number };
  preview: { status: string; start_chars?: number; end_chars?: number };
  continue?: { args: Record<string, unknown> };
}

/** A snippet's text as source characters: marks and edge ellipses dropped, entities decoded. */
function plain(snippet: string): string {
  return snippet
    .replace(/<\/?mark>/g, "")
    .replace(/^…|…$/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

for (const backend of testBackends()) {
  describe(`ladder entries (issue 20 item 9, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let world: OnStore;
    let cid: string;
    before(async () => {
      opened = await backend.open();
      world = await mcpOnStore(opened.store, [NOTES]);
      cid = (await opened.store.ensureConnection("notes", "Mine")).connection_id;
      await opened.store.applyBatch(cid, "notes", [
        {
          op: "upsert",
          data: { id: "n1", written_at: "2024-05-01T10:00:00Z", body: LONG, summary: SUMMARY, tags: ["x"] },
        },
        {
          op: "upsert",
          data: { id: "n2", written_at: "2024-05-02T10:00:00Z", body: "short", tags: ["walnut"] },
        },
      ]);
    });
    after(async () => opened.cleanup());

    test("truncated text previews carry the declared MIME type", async () => {
      const r = await call(world.client, "query_records", { stream: "notes" });
      const ladder = r.structured.content_ladder as Entry[];
      const byPath = new Map(ladder.map((e) => [e.field.path, e]));
      assert.equal(byPath.get("body")?.field.mime_type, "text/plain");
      assert.equal(byPath.get("summary")?.field.mime_type, "text/markdown");
      assert.equal(byPath.get("body")?.preview.status, "truncated");
      // The same MIME type read_record_field reports for the field.
      const w = await call(world.client, "read_record_field", {
        id: `${cid}/notes:n1`,
        field_path: "body",
        limit_chars: 5,
      });
      assert.equal((w.structured.field as { mime_type: string }).mime_type, "text/plain");
    });

    test("snippet entries name the range of the field their snippet shows", async () => {
      for (const [query, path] of [
        ["needle", "body"],
        ["walnut mention", "summary"],
      ] as const) {
        const s = await call(world.client, "search", { query, limit: 1 });
        const results = s.structured.results as { id: string; snippet: string; snippet_field: string }[];
        assert.equal(results[0].snippet_field, path);
        const entry = (s.structured.content_ladder as Entry[])[0];
        assert.equal(entry.preview.status, "snippet_only");
        const { start_chars: start, end_chars: end } = entry.preview;
        assert.ok(start !== undefined && end !== undefined && end > start, JSON.stringify(entry.preview));
        if (path === "body")
          assert.ok(start > CHUNK_CHARS, `range ${start}-${end} should lie in the second chunk`);
        assert.equal(entry.field.mime_type, path === "body" ? "text/plain" : "text/markdown");
        const w = await call(world.client, "read_record_field", {
          id: results[0].id,
          field_path: path,
          offset_chars: start,
          limit_chars: end - start,
        });
        const text = (w.structured.window as { text: string }).text;
        assert.equal(plain(results[0].snippet), text.replace(/\s+/g, " "));
      }
    });

    test("a snippet from a list shown as text claims no range", async () => {
      const s = await call(world.client, "search", { query: "walnut", limit: 10 });
      const entries = (s.structured.content_ladder as Entry[]).filter((e) => e.field.path === "tags");
      for (const e of entries) assert.deepEqual(e.preview, { status: "snippet_only" });
    });
  });
}

describe("fallback titles from the import time say so (issue 20 item 9)", () => {
  let opened: OpenedStore;
  let client: Client;
  let cid: string;
  before(async () => {
    opened = await sqliteBackend.open();
    await mcpOnStore(opened.store, [NOTES]);
    cid = (await opened.store.ensureConnection("notes", "Mine")).connection_id;
    await opened.store.applyBatch(cid, "notes", [
      { op: "upsert", data: { id: "n9", written_at: "2024-05-01T10:00:00Z", body: "hazelnut notes" } },
    ]);
    // A grant that hides the time field: titles can only use the import time.
    const token = newToken("client");
    await opened.store.createGrant({
      grant_id: newGrantId(),
      client_name: "no-time",
      purpose: "tests",
      created_at: new Date().toISOString(),
      expires_at: null,
      revoked_at: null,
      streams: [{ stream: "notes", connector_key: "notes", connections: "all", fields: ["id", "body"] }],
      token_hash: hashToken(token),
    });
    const app = createApp({ store: opened.store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
    client = await createClient(new InProcessRsClient((r, env) => app.fetch(r, env), token, BASE_URL));
  });
  after(async () => opened.cleanup());

  test("search and fetch titles read '… · imported <time>'", async () => {
    const s = await call(client, "search", { query: "hazelnut" });
    const hit = (s.structured.results as { id: string; title: string; time: string | null }[])[0];
    assert.equal(hit.time, null);
    assert.match(hit.title, /^Mine · notes · imported \d{4}-\d\d-\d\dT/);
    assert.match(s.text, /Mine · notes · imported \d{4}-/);
    const f = await call(client, "fetch", { id: hit.id });
    assert.match(f.structured.title as string, /^Mine · notes · imported \d{4}-/);
    assert.doesNotMatch(JSON.stringify(f.structured), /2024-05-01/);
  });
});
