// Issue 9 "MCP surface" items pinned through the SDK client on a real store + RS: large schema
// indexes (1), truthful continuations (5), the window header's match (6), search rows (8),
// bounded titles (9), limit_chars beside cursor/q (10) and previews sized up front (perf).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sha256Digest } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import type { RsCall, RsClient } from "../../src/mcp/rs-client.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import { BASE_URL, buildWorld, createClient, grantAll, openTempStore, type World } from "./fixtures/world.js";
import { type Channels, call, channelChars, errorOf } from "./helpers.js";

/** The parts of an error body that must match exactly (request ids differ per call). */
function pick(e: { code: string; [k: string]: unknown }) {
  return { code: e.code, message: e.message, param: e.param };
}

/** Records every RS call with its query, forwarding to a real client. */
class RecordingRs implements RsClient {
  calls: RsCall[] = [];
  constructor(private readonly inner: RsClient) {}
  get<T>(c: RsCall): Promise<T> {
    this.calls.push(c);
    return this.inner.get<T>(c);
  }
}

/** The continuations a text names must exist in the same result: no handle that is not there. */
function assertContinuationsExist(r: Channels): void {
  const header = r.text.split("\n")[0];
  const value = (name: string) => new RegExp(`${name}=(\\S+)`).exec(header)?.[1] ?? "null";
  const named = (pattern: RegExp) => pattern.test(r.text);
  if (named(/cursor=next_cursor|next_cursor skips|page with its next_cursor/))
    assert.notEqual(value("next_cursor"), "null", r.text);
  if (named(/changes_since=next_changes_since|next_changes_since skips/))
    assert.notEqual(value("next_changes_since"), "null", r.text);
  // The text's handles resume after what the text shows (issue 20 item 4): when it shows the
  // whole page they are the page's own.
  const data = (r.structured.data ?? {}) as { next_cursor?: string | null; data?: unknown[] };
  if (!/^showing \d+ of \d+ records/.test(header) && data.data)
    assert.equal(value("next_cursor"), data.next_cursor ?? "null");
}

describe("MCP surface (issue 9)", () => {
  let world: World;
  let client: Client;
  before(async () => {
    world = await buildWorld();
    client = await world.client();
  });
  after(async () => world.close());

  test("5: every continuation named in text exists (lists, changes, search)", async () => {
    const results: Channels[] = [];
    results.push(await call(client, "query_records", { stream: "messages", limit: 3 }));
    results.push(await call(client, "query_records", { stream: "messages", limit: 100 }));
    results.push(
      await call(client, "query_records", {
        stream: "messages",
        changes_since: "beginning",
        connection_id: world.home,
      }),
    );
    results.push(
      await call(client, "query_records", { stream: "messages", changes_since: "beginning", limit: 2 }),
    );
    results.push(await call(client, "search", { query: "ledger", limit: 2 }));
    results.push(await call(client, "search", { query: "ledger", limit: 100 }));
    for (const r of results) {
      assert.equal(r.isError, false, r.text);
      assertContinuationsExist(r);
    }
    // changes_since, everything read: next_cursor is null, so the text must not page with it.
    const done = results[2];
    assert.match(done.text.split("\n")[0], /has_more=false · next_cursor=null · next_changes_since=\S+/);
    assert.match(done.text, /\nno more changes now; later, ask again with changes_since=next_changes_since$/);
    assert.doesNotMatch(done.text, /cursor=next_cursor/);
    const more = results[3];
    assert.match(more.text, /\npage with changes_since=next_changes_since$/);
    // A last page whose text shows k of its 10 records: the text's next_cursor resumes at record
    // k + 1 (issue 20 item 4), though the page itself has no next page.
    const all = results[1];
    const shown = /^showing (\d) of 10 records from messages · has_more=true · next_cursor=\S+/.exec(
      all.text.split("\n")[0],
    );
    assert.ok(shown, all.text);
    const k = Number(shown[1]);
    assert.ok(all.text.endsWith(`\npage with cursor=next_cursor: it resumes at record ${k + 1} of these 10`));
    assert.equal((all.structured.data as { next_cursor: string | null }).next_cursor, null);
  });

  test("6: the read_record_field text header carries match (null when q is absent)", async () => {
    const id = `${world.work}/messages:long-1`;
    const hit = await call(client, "read_record_field", { id, field_path: "body", q: "ENDMARKER" });
    const header = JSON.parse(hit.text.split("\n")[0]);
    const match = (hit.structured.window as { match: { start_chars: number; end_chars: number } }).match;
    assert.deepEqual(header.match, { start: match.start_chars, end: match.end_chars });
    assert.equal(match.end_chars - match.start_chars, "ENDMARKER".length);
    const miss = await call(client, "read_record_field", {
      id,
      field_path: "body",
      q: "nowhere-to-be-found",
    });
    assert.equal(JSON.parse(miss.text.split("\n")[0]).match, null);
    assert.equal((miss.structured.window as { match: unknown }).match, null);
    assert.equal((miss.structured.window as { start_chars: number }).start_chars, 0);
  });

  test("8: search results keep score, matched_fields and the snippet's field", async () => {
    const r = await call(client, "search", { query: "zebra", streams: ["messages"] });
    const rows = r.structured.results as {
      id: string;
      score: number;
      matched_fields: string[];
      snippet_field: string | null;
      snippet: string | null;
    }[];
    assert.equal(rows.length, 3);
    for (const row of rows) {
      assert.equal(typeof row.score, "number");
      assert.ok(row.score > 0);
      assert.ok(row.matched_fields.length > 0);
      assert.ok(row.snippet_field !== null && row.matched_fields.includes(row.snippet_field));
    }
    const body = rows.find((row) => row.snippet_field === "body");
    if (body) assert.match(r.text, /\n {2}body: /);
  });

  test("8: search ladder entries carry size_chars and digest, the same read_record_field reports", async () => {
    const r = await call(client, "search", { query: "zebra", streams: ["messages"] });
    const ladder = r.structured.content_ladder as {
      id: string;
      field: { path: string; size_chars?: number };
      digest?: string;
      continue: { args: Record<string, unknown> };
    }[];
    const expected = new Map([
      [`${world.work}/messages:shared-1`, ["subject", "Shared zebra note work"]],
      [`${world.home}/messages:shared-1`, ["subject", "Shared zebra note home"]],
      [`${world.work}/messages:long-1`, ["body", world.body]],
    ]);
    assert.deepEqual(new Set(ladder.map((e) => e.id)), new Set(expected.keys()));
    for (const e of ladder) {
      const [path, text] = expected.get(e.id) as [string, string];
      assert.deepEqual(
        [e.field.path, e.field.size_chars, e.digest],
        [path, [...text].length, sha256Digest(text)],
        e.id,
      );
      const w = await call(client, "read_record_field", e.continue.args);
      const field = w.structured.field as { size_chars: number; digest: string };
      assert.deepEqual([field.size_chars, field.digest], [e.field.size_chars, e.digest]);
    }
  });

  test("11: cursor errors name the field and record it can see; a hidden record answers as without the cursor", async () => {
    const id = `${world.work}/messages:long-1`;
    const bad = await call(client, "read_record_field", { id, field_path: "body", cursor: "not-a-cursor" });
    assert.equal(bad.isError, true);
    assert.deepEqual(pick(errorOf(bad)), {
      code: "invalid_cursor",
      message: `cursor is not a cursor this server issued for this request; drop it to start over. (cursor for field body of record ${id})`,
      param: "cursor",
    });
    // A cursor of another field of the same record: bound elsewhere, named here.
    const subject = await call(client, "read_record_field", { id, field_path: "subject", limit_chars: 3 });
    const foreign = (subject.structured.window as { next_cursor: string }).next_cursor;
    const moved = await call(client, "read_record_field", { id, field_path: "body", cursor: foreign });
    assert.deepEqual(pick(errorOf(moved)), {
      code: "invalid_cursor",
      message: `cursor was issued for a different request; repeat the original parameters or drop cursor. (cursor for field body of record ${id})`,
      param: "cursor",
    });
    // Not visible (here: no such record): the same answer as the read without a cursor.
    const hidden = `${world.work}/messages:no-such-record`;
    const withCursor = await call(client, "read_record_field", {
      id: hidden,
      field_path: "body",
      cursor: foreign,
    });
    const without = await call(client, "read_record_field", { id: hidden, field_path: "body" });
    assert.deepEqual(pick(errorOf(withCursor)), pick(errorOf(without)));
    assert.equal(errorOf(without).code, "record_not_found");
    // A list cursor replayed on another stream names the stream it was used on.
    const page = await call(client, "query_records", { stream: "messages", limit: 1 });
    const listCursor = (page.structured.data as { next_cursor: string }).next_cursor;
    const wrong = await call(client, "query_records", { stream: "contacts", cursor: listCursor });
    assert.deepEqual(pick(errorOf(wrong)), {
      code: "invalid_cursor",
      message:
        "cursor was issued for a different request; repeat the original parameters or drop cursor. (cursor for the records of contacts)",
      param: "cursor",
    });
  });

  test("11: a stale field cursor names the field and record", async () => {
    const id = `${world.home}/messages:home-2`;
    const first = await call(client, "read_record_field", { id, field_path: "body", limit_chars: 5 });
    const cursor = (first.structured.window as { next_cursor: string }).next_cursor;
    await world.store.applyBatch(world.home, "messages", [
      {
        op: "upsert",
        data: { message_id: "home-2", subject: "S", sent_at: "2024-03-01T10:00:00Z", body: "Changed body." },
      },
    ]);
    const stale = await call(client, "read_record_field", { id, field_path: "body", cursor });
    assert.deepEqual(pick(errorOf(stale)), {
      code: "stale_cursor",
      message: `field body of record ${id} changed since this cursor was issued; restart from offset 0 (no cursor).`,
      param: "cursor",
    });
  });

  test("10: limit_chars sizes a cursor's window and a q window", async () => {
    const id = `${world.work}/messages:long-1`;
    const first = await call(client, "read_record_field", { id, field_path: "body", limit_chars: 100 });
    const w1 = first.structured.window as { end_chars: number; next_cursor: string };
    assert.equal(w1.end_chars, 100);
    const next = await call(client, "read_record_field", {
      id,
      field_path: "body",
      cursor: w1.next_cursor,
      limit_chars: 250,
    });
    assert.equal(next.isError, false, next.text);
    const w2 = next.structured.window as { start_chars: number; end_chars: number; limit_chars: number };
    assert.deepEqual([w2.start_chars, w2.end_chars, w2.limit_chars], [100, 350, 250]);
    assert.equal(next.text.split("\n").slice(1).join("\n"), world.body.slice(100, 350));
    const q = await call(client, "read_record_field", {
      id,
      field_path: "body",
      q: "ENDMARKER",
      limit_chars: 40,
    });
    assert.equal(q.isError, false, q.text);
    const w3 = q.structured.window as { start_chars: number; end_chars: number; limit_chars: number };
    const at = world.body.indexOf("ENDMARKER");
    // The match and the field's last 12 chars after it; before gets the rest of the 40 (issue 20 item 7).
    assert.deepEqual([w3.start_chars, w3.end_chars, w3.limit_chars], [at - 19, world.body.length, 40]);
  });

  test("perf: query_records asks once, with previews sized for the page", async () => {
    const rs = new RecordingRs(world.rs());
    const c = await createClient(rs);
    for (const [limit, preview] of [
      [25, "512"],
      [10, "2048"],
      [100, "128"],
    ] as const) {
      rs.calls = [];
      const r = await call(c, "query_records", { stream: "messages", limit });
      assert.equal(r.isError, false, r.text);
      const lists = rs.calls.filter((x) => x.path === "/v1/streams/messages/records");
      assert.equal(lists.length, 1);
      assert.deepEqual(
        lists[0].query?.filter(([k]) => k === "preview_chars" || k === "limit"),
        [
          ["preview_chars", preview],
          ["limit", String(limit)],
        ],
      );
    }
  });
});

describe("MCP surface: schema text and nested text fields", () => {
  test("11: schema(stream) text names count support and the search fields", async () => {
    const world = await buildWorld();
    try {
      const client = await world.client();
      const r = await call(client, "schema", { stream: "messages" });
      assert.match(r.text, /\ncount: query_records count:"exact" adds the total of matching records;/);
      assert.match(
        r.text,
        /\nsearch fields: subject, from, body \(search query with streams:\["messages"\]\)/,
      );
      const contacts = await call(client, "schema", { stream: "contacts" });
      assert.match(contacts.text, /\nsearch fields: name \(/);
    } finally {
      await world.close();
    }
  });

  test("4: fetch of a nested text field: that field is the text, true code-point total, continue_with on it", async () => {
    const { store } = await openTempStore();
    try {
      const docs: Manifest = {
        connector_key: "docs",
        display_name: "Docs",
        version: "1",
        streams: [
          {
            name: "pages",
            primary_key: ["id"],
            schema: {
              type: "object",
              properties: {
                id: { type: "string" },
                doc: {
                  type: "object",
                  properties: { title: { type: "string" }, content: { type: "string" } },
                },
              },
            },
            text_fields: ["doc.content"],
          },
        ],
      };
      await store.putManifest(docs);
      const conn = (await store.ensureConnection("docs", "Drive")).connection_id;
      const content = `${"páge 😀 ".repeat(3000)}THE-END`;
      await store.applyBatch(conn, "pages", [
        { op: "upsert", data: { id: "p1", doc: { title: "Nested", content } } },
      ]);
      const token = await grantAll(store, [docs]);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      const client = await createClient(new InProcessRsClient(async (r) => app.fetch(r), token, BASE_URL));
      const id = `${conn}/pages:p1`;
      const f = await call(client, "fetch", { id });
      assert.equal(f.isError, false, f.text);
      const points = [...content];
      assert.equal(f.structured.text, points.slice(0, 16_384).join(""));
      const meta = f.structured.metadata as Record<string, unknown>;
      assert.equal(meta.text_field, "doc.content");
      assert.equal(meta.text_complete, false);
      assert.equal(meta.text_total_chars, points.length);
      assert.deepEqual(meta.continue_with, {
        tool: "read_record_field",
        args: { id, field_path: "doc.content", offset_chars: 16_384 },
      });
      assert.deepEqual(meta.fields, { id: "p1", doc: { title: "Nested" } });
      const rest = await call(client, "read_record_field", {
        ...(meta.continue_with as { args: Record<string, unknown> }).args,
        limit_chars: 16_384,
      });
      assert.equal(rest.text.split("\n").slice(1).join("\n"), points.slice(16_384).join(""));
    } finally {
      await store.close();
    }
  });
});

describe("MCP surface: titles and large grants", () => {
  test("9: titles are at most 200 chars in both channels", async () => {
    const { store } = await openTempStore();
    try {
      const notes: Manifest = {
        connector_key: "notes",
        display_name: "Notes",
        version: "1",
        streams: [
          {
            name: "notes",
            primary_key: ["id"],
            title_field: "title",
            schema: { type: "object", properties: { id: { type: "string" }, title: { type: "string" } } },
            query: { search: ["title"] },
          },
        ],
      };
      await store.putManifest(notes);
      const conn = (await store.ensureConnection("notes", "Mine")).connection_id;
      const title = `kiwi ${"long title words ".repeat(300)}`;
      await store.applyBatch(
        conn,
        "notes",
        Array.from({ length: 50 }, (_, i) => ({ op: "upsert" as const, data: { id: `n${i}`, title } })),
      );
      const token = await grantAll(store, [notes]);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      const client = await createClient(new InProcessRsClient(async (r) => app.fetch(r), token, BASE_URL));
      const s = await call(client, "search", { query: "kiwi", limit: 20 });
      const rows = s.structured.results as { title: string }[];
      assert.equal(rows.length, 20);
      const expected = `${[...title.replace(/\s+/g, " ").trim()].slice(0, 199).join("")}…`;
      for (const row of rows) assert.equal(row.title, expected);
      assert.equal([...expected].length, 200);
      const f = await call(client, "fetch", { id: `${conn}/notes:n0` });
      assert.equal(f.structured.title, expected);
      assert.equal(JSON.parse(f.text).title, expected);
      for (const line of s.text.split("\n")) assert.ok(line.length <= 400, line);
    } finally {
      await store.close();
    }
  });

  test("1: schema() on 500 streams names every stream in both channels within 40,000 chars", async () => {
    const { store } = await openTempStore();
    try {
      const manifests: Manifest[] = Array.from({ length: 5 }, (_, c) => ({
        connector_key: `conn${c}`,
        display_name: `Connector ${c}`,
        version: "1",
        streams: Array.from({ length: 100 }, (_, s) => ({
          name: `stream_${c}_${String(s).padStart(3, "0")}`,
          primary_key: ["id"],
          time_field: "at",
          schema: { type: "object", properties: { id: { type: "string" }, at: { type: "string" } } },
        })),
      }));
      for (const m of manifests) {
        await store.putManifest(m);
        await store.ensureConnection(m.connector_key, "Main");
      }
      const token = await grantAll(store, manifests);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      const client = await createClient(new InProcessRsClient(async (r) => app.fetch(r), token, BASE_URL));
      const r = await call(client, "schema", {});
      assert.equal(r.isError, false, r.text);
      const size = channelChars(r);
      assert.ok(size.text <= 40_000 && size.structured <= 40_000, JSON.stringify(size));
      const names = manifests.flatMap((m) => m.streams.map((s) => s.name));
      assert.equal(names.length, 500);
      const textNames = new Set(
        r.text.split("\n").flatMap((line) => {
          const row = /^ {2}([a-z0-9_:]+): /.exec(line);
          if (row) return [row[1]];
          const list = /^ {2}streams=(.+)$/.exec(line);
          return list ? list[1].split(",") : [];
        }),
      );
      assert.deepEqual([...textNames].sort(), [...names].sort());
      const data = r.structured.data as {
        connectors: { streams: { name: string }[]; more_streams?: string[] }[];
        note?: string;
      };
      const rows = data.connectors.flatMap((c) => c.streams.map((s) => s.name));
      assert.equal(rows.length, 50);
      const listed = data.connectors.flatMap((c) => c.more_streams ?? []);
      assert.deepEqual([...rows, ...listed].sort(), [...names].sort());
      assert.match(data.note ?? "", /more_streams names the rest/);
      assert.match(r.text, /^schema index · 5 connectors · 500 streams/);
    } finally {
      await store.close();
    }
  });
});
