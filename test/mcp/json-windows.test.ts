// Issue 9 item 3 on both backends: an object field that holds a long-text field (stored in chunks,
// not in the payload) windows as the canonical JSON of the whole stored value, text included, and
// read_record_field's cursors reassemble exactly that.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { canonicalJson } from "../../src/core/canonical-json.js";
import type { StreamScope } from "../../src/core/grant.js";
import { sha256Digest } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import { BASE_URL, createClient, grantAll } from "./fixtures/world.js";
import { call } from "./helpers.js";

const DOCS: Manifest = {
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
          doc: { type: "object", properties: { title: { type: "string" }, content: { type: "string" } } },
          tags: { type: "array", items: { type: "string" } },
        },
      },
      text_fields: ["doc.content"],
    },
  ],
};

const doc = { title: "Nested 😀", content: `${"páge 😀 ".repeat(5000)}THE-END` };

for (const backend of testBackends()) {
  describe(`non-text windows include chunked text below them (${backend.name})`, () => {
    let opened: OpenedStore;
    let conn: string;
    let client: Client;
    before(async () => {
      opened = await backend.open();
      const store = opened.store;
      await store.putManifest(DOCS);
      conn = (await store.ensureConnection("docs", "Drive")).connection_id;
      await store.applyBatch(conn, "pages", [{ op: "upsert", data: { id: "p1", doc, tags: ["a", "b"] } }]);
      const token = await grantAll(store, [DOCS]);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      client = await createClient(new InProcessRsClient(async (r, env) => app.fetch(r, env), token));
    });
    after(async () => opened.cleanup());

    test("store: the object's window is its whole canonical JSON, the long text included", async () => {
      const scope: StreamScope = {
        connectorKey: "docs",
        stream: DOCS.streams[0],
        connectionIds: [conn],
        fields: "all",
        since: null,
        until: null,
      };
      const json = canonicalJson(doc);
      const size = [...json].length;
      const w = await opened.store.readFieldWindow(
        scope,
        { connectionId: conn, recordId: "p1", path: "doc" },
        { kind: "range", offsetChars: size - 20, limitChars: 100 },
      );
      assert.deepEqual(
        [w?.text, w?.sizeChars, w?.digest, w?.textLike, w?.mimeType],
        [[...json].slice(size - 20).join(""), size, sha256Digest(json), false, "application/json"],
      );
    });

    test("read_record_field follows cursors through the object's JSON to its last char", async () => {
      const json = canonicalJson(doc);
      const id = `${conn}/pages:p1`;
      let args: Record<string, unknown> = { id, field_path: "doc", limit_chars: 16_384 };
      let whole = "";
      for (let i = 0; i < 10; i++) {
        const r = await call(client, "read_record_field", args);
        assert.equal(r.isError, false, r.text);
        const w = r.structured.window as { text: string; next_cursor: string | null };
        whole += w.text;
        if (w.next_cursor === null) break;
        args = { id, field_path: "doc", cursor: w.next_cursor };
      }
      assert.equal(whole, json);
      const tags = await call(client, "read_record_field", { id, field_path: "tags", q: "b" });
      assert.deepEqual(tags.structured.window, {
        text: '["a","b"]',
        start_chars: 0,
        end_chars: 9,
        // 2,048 before + the match + 2,048 after: the limit a q window applies.
        limit_chars: 4097,
        complete: true,
        next_cursor: null,
        previous_cursor: null,
        match: { q: "b", start_chars: 6, end_chars: 7 },
      });
    });
  });
}
