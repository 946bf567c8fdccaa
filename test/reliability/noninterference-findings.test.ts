// Regression tests of issue 8's noninterference findings owned here, on both backends through the
// real app (app.fetch) and the real MCP SDK client: 1 (record `time` of an ungranted time_field),
// 4 (changes_since bookmarks readable / moved by hidden writes) and 7 (deep manifest → 422).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { type Harness, openHarness } from "./fixtures/harness.js";
import { connectMcp } from "./fixtures/mcp-client.js";
import { openWorld } from "./fixtures/ni-load.js";
import { type Batch, CHAT_MANIFEST, mailManifest, type Step } from "./fixtures/ni-world.js";

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
      assert.match(answers[3].json.data[0].title, /^Diary · notes · \d{4}-/);
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
      const page = async (world: typeof w, bookmark: string) =>
        world.h.request(
          `/v1/streams/messages/records?changes_since=${encodeURIComponent(bookmark)}&limit=2`,
          { token },
        );
      let bookmark = "beginning";
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        const [a, b] = [await page(w, bookmark), await page(wp, bookmark)];
        assert.equal(a.status, 200, a.text);
        const strip = (text: string) => text.replace(/req_[0-9a-f]{16}/g, "req");
        assert.equal(strip(a.text), strip(b.text), `page ${i} differs between W and W'`);
        seen.push(...a.json.data.map((r: { record_id: string }) => r.record_id));
        bookmark = a.json.next_changes_since;
        // Nothing readable: no record id, connection id, time or number in any decoding.
        for (const part of bookmark.split(".")) {
          const text = Buffer.from(part, "base64url").toString("latin1");
          assert.ok(!/v-\d|cin_|2026|"v"/.test(text), `readable bookmark: ${text}`);
        }
      }
      assert.deepEqual(seen, ["v-0", "v-1", "v-2", "v-3", "v-4", "v-5"]);
      // A record changed after the client saw it comes again (never skipped) and only once.
      clock(Date.parse("2026-01-01T01:00:00Z"));
      for (const world of [w, wp]) {
        const change = {
          op: "upsert" as const,
          data: { message_id: "v-5", subject: "s", body: "edited", sent_at: "2024-05-01T00:00:00.000Z" },
        };
        await world.store.applyBatch(world.conns.work, "messages", [change]);
      }
      const [a, b] = [await page(w, bookmark), await page(wp, bookmark)];
      assert.deepEqual(
        a.json.data.map((r: { record_id: string }) => r.record_id),
        ["v-5"],
      );
      assert.equal(a.json.next_changes_since, b.json.next_changes_since);
      const after = await page(w, a.json.next_changes_since);
      assert.deepEqual(after.json.data, []);
      assert.equal(after.json.next_changes_since, a.json.next_changes_since);
    } finally {
      await w.close();
      await wp.close();
    }
  });
}
