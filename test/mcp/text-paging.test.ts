// A text-only agent pages by what content[] shows (issue 20 item 4): the continuation printed in
// the text resumes at the first record the text did not show, so following it reads every record
// exactly once, in order, in list and changes mode, on both stores, in-process, over a spawned
// stdio `pdpp mcp --provider-url` and over hosted HTTP /mcp. The structured page keeps its own
// next_cursor, which resumes after the whole page it holds.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Manifest } from "../../src/core/manifest.js";
import type { IngestOp, Store } from "../../src/store/store.js";
import { testBackends } from "../helpers/backends.js";
import { mcpOnStore } from "./fixtures/on-store.js";
import { type Served, serveWorld } from "./fixtures/served.js";
import { buildWorld, type World } from "./fixtures/world.js";
import { call } from "./helpers.js";

const MBOX: Manifest = {
  connector_key: "mbox",
  display_name: "Mail",
  version: "1",
  streams: [
    {
      name: "messages",
      primary_key: ["message_id"],
      time_field: "sent_at",
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          subject: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string" },
        },
      },
      text_fields: ["body"],
      query: { search: ["subject", "body"] },
    },
  ],
};

/** 200 mails; some with long subjects and bodies, so the text shows 2 to 5 of a page. */
function mails(prefix: string, n = 200): IngestOp[] {
  return Array.from({ length: n }, (_, i) => ({
    op: "upsert" as const,
    data: {
      message_id: `${prefix}${String(i).padStart(3, "0")}`,
      subject: `${i % 3 === 0 ? "Long subject ".repeat(12) : "Subject"} ${i}`,
      sent_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      body: `${"mail body text ".repeat(i % 4 === 0 ? 60 : 2)} ${i}`,
    },
  }));
}

interface TextPage {
  ids: string[];
  hasMore: boolean;
  cursor: string | null;
  changes: string | null;
}

/** What a content-only client reads: the header's handles and the ids of the lines shown. */
function readText(text: string): TextPage {
  const [header, ...rest] = text.split("\n");
  const handle = (name: string) => {
    const m = new RegExp(`(?:^| )${name}=(\\S+)`).exec(header);
    return m && m[1] !== "null" ? m[1] : null;
  };
  const ids = rest.filter((l) => l.startsWith('{"id":')).map((l) => (JSON.parse(l) as { id: string }).id);
  return {
    ids,
    hasMore: /has_more=true/.test(header),
    cursor: handle("next_cursor"),
    changes: handle("next_changes_since"),
  };
}

/** Page by the text alone until it says there is no more; every id seen, in order. */
async function readAllByText(
  client: Client,
  args: Record<string, unknown>,
  mode: "list" | "changes",
): Promise<{ ids: string[]; shownPerPage: number[] }> {
  const ids: string[] = [];
  const shownPerPage: number[] = [];
  let next: Record<string, unknown> = { ...args };
  for (let page = 0; page < 400; page++) {
    const r = await call(client, "query_records", next);
    assert.equal(r.isError, false, r.text);
    const t = readText(r.text);
    ids.push(...t.ids);
    shownPerPage.push(t.ids.length);
    if (mode === "list") {
      if (!t.hasMore || !t.cursor) return { ids, shownPerPage };
      next = { ...args, cursor: t.cursor };
    } else {
      if (t.ids.length === 0) return { ids, shownPerPage };
      assert.ok(t.changes);
      next = { ...args, changes_since: t.changes };
    }
  }
  throw new Error("did not reach the end");
}

function assertEveryOnce(ids: string[], expected: string[], what: string): void {
  assert.equal(new Set(ids).size, ids.length, `${what}: a record was shown twice`);
  assert.deepEqual([...ids].sort(), [...expected].sort(), `${what}: records skipped or extra`);
}

for (const backend of testBackends()) {
  describe(`text paging resumes at the first record not shown (issue 20 item 4, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let client: Client;
    let expected: string[];
    before(async () => {
      opened = await backend.open();
      const world = await mcpOnStore(opened.store, [MBOX]);
      client = world.client;
      const cid = (await opened.store.ensureConnection("mbox", "Inbox")).connection_id;
      await opened.store.applyBatch(cid, "messages", mails("m"));
      expected = mails("m").map((op) => `${cid}/messages:${op.data.message_id}`);
    });
    after(async () => opened.cleanup());

    test("list mode: following the text's next_cursor reads all 200 once, newest first", async () => {
      const { ids, shownPerPage } = await readAllByText(client, { stream: "mbox:messages" }, "list");
      assertEveryOnce(ids, expected, "list");
      assert.deepEqual(ids, [...expected].reverse());
      // The text showed at most 5 of each page of 25 (else this proves nothing): 40 pages, not 8.
      assert.ok(shownPerPage.every((n) => n >= 1 && n <= 5));
      assert.ok(shownPerPage.length >= 40, `${shownPerPage.length} pages`);
    });

    test("changes mode: following the text's next_changes_since reads every change once", async () => {
      const { ids } = await readAllByText(
        client,
        { stream: "messages", changes_since: "beginning", limit: 40 },
        "changes",
      );
      assertEveryOnce(ids, expected, "changes");
    });

    test("the text names where it resumes; the structured page keeps its own next_cursor", async () => {
      const r = await call(client, "query_records", { stream: "messages" });
      const t = readText(r.text);
      const data = r.structured.data as {
        data: { id: string }[];
        next_cursor: string;
        meta: Record<string, unknown>;
      };
      assert.equal(data.data.length, 25);
      assert.ok(t.ids.length < 25);
      assert.match(
        r.text,
        new RegExp(`^showing ${t.ids.length} of 25 records from messages · has_more=true`),
      );
      assert.match(
        r.text,
        new RegExp(`page with cursor=next_cursor: it resumes at record ${t.ids.length + 1} of these 25$`),
      );
      assert.notEqual(t.cursor, data.next_cursor);
      assert.equal(data.meta.resume_points, undefined);
      // The structured cursor resumes after its 25; the text's after what the text showed.
      const viaText = await call(client, "query_records", { stream: "messages", cursor: t.cursor });
      const first = (viaText.structured.data as { data: { id: string }[] }).data[0].id;
      assert.equal(first, data.data[t.ids.length].id);
      const viaStructured = await call(client, "query_records", {
        stream: "messages",
        cursor: data.next_cursor,
      });
      assert.equal(
        (viaStructured.structured.data as { data: { id: string }[] }).data[0].id,
        expected.at(-26),
      );
      // With every record shown, the text prints the page's own cursor.
      const small = await call(client, "query_records", {
        stream: "messages",
        limit: 2,
        fields: ["sent_at"],
      });
      assert.equal(
        readText(small.text).cursor,
        (small.structured.data as { next_cursor: string }).next_cursor,
      );
    });
  });
}

describe("text paging over real transports (issue 20 item 4)", () => {
  let world: World;
  let served: Served;
  before(async () => {
    world = await buildWorld();
    await (world.store as Store).putManifest(MBOX);
    const cid = (await world.store.ensureConnection("mbox", "Inbox")).connection_id;
    await world.store.applyBatch(cid, "messages", mails("t", 60));
    // buildWorld's grant covers its own manifest only: grant mbox too, on the same token.
    const { grantAll } = await import("./fixtures/world.js");
    world.token = await grantAll(world.store, [MBOX]);
    served = await serveWorld(world);
  });
  after(async () => {
    await served.close();
    await world.close();
  });

  const expectedIds = async () => {
    const cid = (await world.store.ensureConnection("mbox", "Inbox")).connection_id;
    return mails("t", 60).map((op) => `${cid}/messages:${op.data.message_id}`);
  };

  test("hosted HTTP /mcp", async () => {
    const client = new Client({ name: "http-text", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${world.token}` } },
      }),
    );
    try {
      const { ids } = await readAllByText(client, { stream: "mbox:messages" }, "list");
      assertEveryOnce(ids, await expectedIds(), "http");
    } finally {
      await client.close();
    }
  });

  test("stdio pdpp mcp --provider-url (the RS over HTTP)", async () => {
    const client = new Client({ name: "stdio-text", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(import.meta.dirname, "..", "..", "bin", "pdpp.js"), "mcp", "--provider-url", served.url],
        env: { PDPP_TOKEN: world.token },
        stderr: "pipe",
      }),
    );
    try {
      const { ids } = await readAllByText(client, { stream: "mbox:messages" }, "list");
      assertEveryOnce(ids, await expectedIds(), "stdio");
    } finally {
      await client.close();
    }
  });
});

/** The ids a content-only client reads from search text, and its paging handles. */
function readSearchText(text: string): { ids: string[]; hasMore: boolean; cursor: string | null } {
  const [header, ...rest] = text.split("\n");
  const cursor = /next_cursor=(\S+)/.exec(header)?.[1] ?? "null";
  const ids = rest.map((l) => /^\[\d+\] id=(\S+)/.exec(l)?.[1]).filter((x): x is string => !!x);
  return { ids, hasMore: /has_more=true/.test(header), cursor: cursor === "null" ? null : cursor };
}

for (const backend of testBackends()) {
  describe(`search text pages from the first hit it did not show (issue 20 item 4, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let client: Client;
    let expected: string[];
    before(async () => {
      opened = await backend.open();
      client = (await mcpOnStore(opened.store, [MBOX])).client;
      const cid = (await opened.store.ensureConnection("mbox", "Inbox")).connection_id;
      await opened.store.applyBatch(cid, "messages", mails("s", 90));
      expected = mails("s", 90).map((op) => `${cid}/messages:${op.data.message_id}`);
    });
    after(async () => opened.cleanup());

    test("following the text's next_cursor reads every hit once", async () => {
      const ids: string[] = [];
      let args: Record<string, unknown> = { query: "mail body", limit: 25 };
      let pages = 0;
      for (; pages < 200; pages++) {
        const r = await call(client, "search", args);
        assert.equal(r.isError, false, r.text);
        const t = readSearchText(r.text);
        assert.ok(t.ids.length < 25, "the text shows fewer hits than the page holds");
        ids.push(...t.ids);
        if (!t.hasMore || !t.cursor) break;
        args = { query: "mail body", limit: 25, cursor: t.cursor };
      }
      assertEveryOnce(ids, expected, "search");
      assert.ok(pages > 90 / 25);
    });
  });
}
