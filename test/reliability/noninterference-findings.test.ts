// Regression tests of issue 8's noninterference findings owned here, on both backends through the
// real app (app.fetch) and the real MCP SDK client: 1 (record `time` of an ungranted time_field),
// 4 (changes_since bookmarks readable / moved by hidden writes) and 7 (deep manifest → 422).
// Finding 4 as issue 20 item 11 left it: a bookmark seals a store-wide version, so its bytes differ
// between worlds, but it is unreadable, of one length, equal exactly when it marks the same visible
// change, and what follows it is byte-identical (compared with bookmarks named, ni-compare.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { type Harness, openHarness } from "./fixtures/harness.js";
import { connectMcp } from "./fixtures/mcp-client.js";
import { BookmarkNames } from "./fixtures/ni-compare.js";
import { openWorld } from "./fixtures/ni-load.js";
import { CHAT_MANIFEST, mailManifest } from "./fixtures/ni-manifests.js";
import type { Batch, Step } from "./fixtures/ni-world.js";

const SENT = "2024-03-04T05:06:07.000Z";

const MANIFEST: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      cursor_field: "id",
      time_field: "sent_at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          body: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
        },
      },
      text_fields: ["body"],
      query: { search: ["body"] },
    },
  ],
};

async function world(h: Harness): Promise<{ conn: string; token: string }> {
  await h.registerManifest(MANIFEST);
  const conn = await h.createConnection("notes", "Diary");
  await h.ingest(conn, "notes", [{ op: "upsert", data: { id: "n1", body: "hello falcon", sent_at: SENT } }]);
  const { token } = await h.createGrant({
    client_name: "ni",
    purpose: "time hidden",
    streams: [{ stream: "notes", connector_key: "notes", connections: "all", fields: ["body"] }],
  });
  return { conn, token };
}

for (const backend of testBackends()) {
  test(`finding 1: no record time when time_field is not granted, on ${backend.name}`, async () => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      const { conn, token } = await world(h);
      const answers = [
        await h.request("/v1/streams/notes/records", { token }),
        await h.request("/v1/streams/notes/records?changes_since=beginning", { token }),
        await h.request(`/v1/streams/notes/records/n1?connection_id=${conn}`, { token }),
        await h.request("/v1/search?q=falcon", { token }),
      ];
      for (const a of answers) {
        assert.equal(a.status, 200, a.text);
        assert.ok(!a.text.includes("2024-03-04"), `hidden time shown: ${a.text}`);
      }
      assert.equal(answers[0].json.data[0].time, null);
      assert.equal(answers[2].json.time, null);
      assert.equal(answers[3].json.data[0].time, null);
      assert.match(answers[3].json.data[0].title, /^Diary · notes · imported \d{4}-/);
      // The owner still sees it: the fix is about the grant, not the data.
      const owner = await h.request(`/v1/streams/notes/records/n1?connection_id=${conn}`);
      assert.equal(owner.json.time, SENT);

      const mcp = await connectMcp(h, token);
      try {
        const calls = [
          await mcp.call("search", { query: "falcon" }),
          await mcp.call("query_records", { stream: "notes" }),
          await mcp.call("query_records", { stream: "notes", changes_since: "beginning" }),
          await mcp.call("fetch", { id: `${conn}/notes:n1` }),
        ];
        for (const r of calls) {
          assert.equal(r.isError, false, r.text);
          assert.ok(!r.raw.includes("2024-03-04"), `hidden time in MCP answer: ${r.raw.slice(0, 600)}`);
        }
      } finally {
        await mcp.close();
      }
    } finally {
      await opened.cleanup();
    }
  });

  test(`finding 7: a deeply nested manifest is 422 manifest_invalid, on ${backend.name}`, async () => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      // Built as text: JSON.stringify itself would overflow on the deepest one.
      const manifest = (depth: number): string => {
        const open = '{"type":"object","properties":{"a":'.repeat(depth);
        const deep = `${open}{"type":"string"}${"}}".repeat(depth)}`;
        const stream = {
          ...MANIFEST.streams[0],
          schema: { type: "object", properties: { ...MANIFEST.streams[0].schema.properties, deep: "@" } },
        };
        return JSON.stringify({ ...MANIFEST, streams: [stream] }).replace('"@"', deep);
      };
      for (const depth of [40, 1_000, 20_000]) {
        const a = await h.request("/v1/owner/connectors", {
          method: "POST",
          body: manifest(depth),
          headers: { "content-type": "application/json" },
        });
        assert.equal(a.status, 422, `depth ${depth}: ${a.text.slice(0, 300)}`);
        assert.equal(a.json.error.code, "manifest_invalid");
        assert.match(a.json.error.message, /nested deeper than 64 levels/);
      }
      // 30 levels of nested fields (the documented bound) still register.
      const ok = await h.request("/v1/owner/connectors", {
        method: "POST",
        body: manifest(29),
        headers: { "content-type": "application/json" },
      });
      assert.equal(ok.status, 200, ok.text.slice(0, 300));
    } finally {
      await opened.cleanup();
    }
  });
}

/** Visible mail on Work, plus (in W' only) many writes to the hidden Personal connection between them. */
function bookmarkSteps(hiddenWrites: boolean): Step[] {
  const mail = (id: string, extra = ""): Batch["ops"][number] => ({
    op: "upsert",
    data: {
      message_id: id,
      subject: `s ${id}`,
      body: `body ${id} ${extra}`,
      sent_at: "2024-05-01T00:00:00.000Z",
    },
  });
  const steps: Step[] = [
    { manifest: mailManifest({ noteSearchable: true, draftsExtra: false }) },
    { manifest: CHAT_MANIFEST },
  ];
  for (let i = 0; i < 6; i++) {
    if (hiddenWrites) {
      const ops = Array.from({ length: 5 + i }, (_, j) => mail(`h-${i}-${j}`));
      steps.push({ batch: { connection: "personal", stream: "messages", ops }, tick: null });
    }
    steps.push({ batch: { connection: "work", stream: "messages", ops: [mail(`v-${i}`)] }, tick: i });
  }
  return steps;
}

for (const backend of testBackends()) {
  test(`finding 4: changes_since bookmarks are the same whatever was written out of sight, on ${backend.name}`, async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: Date.parse("2026-01-01T00:00:00Z") });
    const clock = (ms: number) => t.mock.timers.setTime(ms);
    const w = await openWorld(backend, { steps: bookmarkSteps(false), rankWindow: 10_000, clock });
    const wp = await openWorld(backend, { steps: bookmarkSteps(true), rankWindow: 10_000, clock });
    try {
      const token = await w.grant(
        {
          client_name: "ni",
          purpose: "bookmarks",
          streams: [
            { stream: "messages", connector_key: "mail", connections: [w.conns.work], fields: "all" },
          ],
        },
        wp,
      );
      const names = [new BookmarkNames(), new BookmarkNames()];
      const lengths = new Set<number>();
      /** One page in each world from its own bookmark (`mark`: a name, or "beginning"). */
      const pages = async (mark: string) => {
        const answers = [];
        for (const [i, world] of [w, wp].entries()) {
          const path = `/v1/streams/messages/records?changes_since=${encodeURIComponent(names[i].reveal(mark))}&limit=2`;
          const a = await world.h.request(path, { token });
          assert.equal(a.status, 200, a.text);
          const bookmark: string = a.json.next_changes_since;
          lengths.add(bookmark.length);
          // Nothing readable: no record id, connection id, time or number in any decoding.
          for (const part of bookmark.split(".")) {
            const text = Buffer.from(part, "base64url").toString("latin1");
            assert.ok(!/v-\d|cin_|2026|"v"/.test(text), `readable bookmark: ${text}`);
          }
          answers.push(names[i].hide({ text: a.text.replace(/req_[0-9a-f]{16}/g, "req"), json: a.json }));
        }
        assert.equal(answers[0].text, answers[1].text, "pages differ between W and W'");
        // biome-ignore lint/suspicious/noExplicitAny: a list envelope
        return answers[0].json as any;
      };
      let mark = "beginning";
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        const a = await pages(mark);
        seen.push(...a.data.map((r: { record_id: string }) => r.record_id));
        mark = a.next_changes_since;
      }
      assert.deepEqual(seen, ["v-0", "v-1", "v-2", "v-3", "v-4", "v-5"]);
      // A record changed after the client saw it comes again (never skipped) and only once; W'
      // writes more out of sight first.
      clock(Date.parse("2026-01-01T01:00:00Z"));
      await wp.store.applyBatch(wp.conns.personal, "messages", [
        {
          op: "upsert",
          data: { message_id: "h-late", subject: "s", body: "b", sent_at: "2024-05-01T00:00:00.000Z" },
        },
      ]);
      for (const world of [w, wp]) {
        const change = {
          op: "upsert" as const,
          data: { message_id: "v-5", subject: "s", body: "edited", sent_at: "2024-05-01T00:00:00.000Z" },
        };
        await world.store.applyBatch(world.conns.work, "messages", [change]);
      }
      const a = await pages(mark);
      assert.deepEqual(
        a.data.map((r: { record_id: string }) => r.record_id),
        ["v-5"],
      );
      const after = await pages(a.next_changes_since);
      assert.deepEqual(after.data, []);
      // An empty page hands back the bookmark it was given, in each world.
      assert.equal(after.next_changes_since, a.next_changes_since);
      assert.equal(lengths.size, 1, `bookmark lengths ${[...lengths]}`);
    } finally {
      await w.close();
      await wp.close();
    }
  });
}
