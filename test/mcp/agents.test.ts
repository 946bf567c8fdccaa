// The three client classes of 30-mcp.md, each finishing schema → search → fetch →
// read_record_field to the last char of a 200 KB field on a two-connection grant (real RS + SQLite).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { recordUri } from "../../src/core/render/handles.js";
import { buildWorld, SpyRsClient, type World } from "./fixtures/world.js";
import { call, errorOf } from "./helpers.js";

describe("client classes", () => {
  let world: World;
  let client: Client;
  before(async () => {
    world = await buildWorld();
    client = await world.client();
  });
  after(() => world.close());

  test("an unscoped legacy fetch is ambiguous on this grant (the journeys must not need it)", async () => {
    const r = await call(client, "fetch", { id: "messages:long-1" });
    assert.equal(errorOf(r).code, "ambiguous_connection");
  });

  test("content-only agent: reads only content[] text, extracts by regex", async () => {
    const textOf = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      const blocks = r.content as { type: string; text?: string }[];
      assert.equal(r.isError ?? false, false, blocks[0]?.text);
      return blocks
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? "")
        .join("\n");
    };
    const index = await textOf("schema", {});
    const connections = [...new Set(index.match(/cin_[0-9a-f]{12}/g))];
    assert.equal(connections.length, 2);
    assert.match(index, /messages: \d+ records/);
    const streamText = await textOf("schema", { stream: "messages" });
    assert.match(streamText, /body t=string txt/);
    const hits = await textOf("search", { query: "quarterly archive" });
    const id = /first_fetch_id=(\S+)/.exec(hits)?.[1];
    assert.ok(id, hits);
    const docText = await textOf("fetch", { id });
    const doc = JSON.parse(docText) as {
      text: string;
      metadata: { text_complete: boolean; continue_with: { args: Record<string, unknown> } };
    };
    assert.equal(doc.metadata.text_complete, false);
    let assembled = doc.text;
    let args: Record<string, unknown> = doc.metadata.continue_with.args;
    for (let i = 0; i < 100; i++) {
      const out = await textOf("read_record_field", args);
      const newline = out.indexOf("\n");
      const header = JSON.parse(out.slice(0, newline)) as {
        end: number;
        total: number;
        next_cursor: string | null;
      };
      assembled += out.slice(newline + 1);
      if (!header.next_cursor) break;
      args = { id, field_path: "body", cursor: header.next_cursor };
    }
    assert.equal(assembled.length, world.body.length);
    assert.equal(assembled, world.body);
    assert.ok(assembled.endsWith("ENDMARKER-zebra-final"));
  });

  test("structured-only agent: reads only structuredContent", async () => {
    const structured = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError ?? false, false, JSON.stringify(r.content));
      // biome-ignore lint/suspicious/noExplicitAny: the agent walks arbitrary structured JSON
      return r.structuredContent as Record<string, any>;
    };
    const schema = await structured("schema", {});
    const connector = schema.data.connectors[0];
    assert.equal(connector.connections.length, 2);
    assert.equal(schema.data.data, undefined, "never data.data");
    const search = await structured("search", { query: "quarterly archive" });
    const hit = search.results[0];
    assert.equal(hit.title, "Quarterly ledger archive");
    assert.equal(search.data.data, undefined, "no second copy of the hits");
    const doc = await structured("fetch", { id: hit.id });
    assert.equal(doc.metadata.text_total_chars, world.body.length);
    let assembled: string = doc.text;
    let args: Record<string, unknown> = doc.metadata.continue_with.args;
    for (let i = 0; i < 100; i++) {
      const w = await structured("read_record_field", args);
      assert.equal(w.field.size_chars, world.body.length);
      assembled += w.window.text;
      if (!w.window.next_cursor) break;
      args = { id: w.record.id, field_path: w.field.path, cursor: w.window.next_cursor };
    }
    assert.equal(assembled, world.body);
  });

  test("resource-aware agent: follows resource_link through resources/read to the end", async () => {
    const search = await call(client, "search", { query: "quarterly archive" });
    const id = (search.structured.results as { id: string }[])[0].id;
    const first = await client.callTool({
      name: "read_record_field",
      arguments: { id, field_path: "body", limit_chars: 16384 },
    });
    const blocks = first.content as { type: string; text?: string; uri?: string }[];
    const firstText = blocks[0].text ?? "";
    let assembled = firstText.slice(firstText.indexOf("\n") + 1);
    const link = blocks.find((b) => b.type === "resource_link");
    assert.ok(link?.uri?.startsWith("pdpp://field-window/"));
    let uri: string | null = link?.uri ?? null;
    let reads = 0;
    while (uri) {
      const res = await client.readResource({ uri });
      const content = res.contents[0] as unknown as {
        text: string;
        mimeType: string;
        _meta: { next_uri: string | null };
      };
      assert.equal(content.mimeType, "text/plain");
      assembled += content.text;
      uri = content._meta.next_uri;
      reads++;
    }
    assert.ok(reads >= 2);
    assert.equal(assembled, world.body);
  });

  test("record resource returns the fetch document; a malformed handle fails with zero RS calls", async () => {
    const uri = recordUri({ c: world.work, s: "messages", r: "long-1" });
    const res = await client.readResource({ uri });
    const viaTool = await call(client, "fetch", { id: `${world.work}/messages:long-1` });
    assert.deepEqual(JSON.parse((res.contents[0] as { text: string }).text), viaTool.structured);
    const spy = new SpyRsClient(world.rs());
    const spyClient = await world.client({ rs: spy });
    for (const bad of [
      "pdpp://record/%%%",
      "pdpp://record/eyJ2IjoxfQ",
      "pdpp://field-window/bm9wZQ",
      "pdpp://nope/x",
    ]) {
      await assert.rejects(spyClient.readResource({ uri: bad }), /invalid_id/);
    }
    assert.deepEqual(spy.calls, []);
  });
});
