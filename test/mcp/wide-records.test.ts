// Issue 20 item 3 through the SDK client: every field of a 400-field record has a path a client
// can see in either channel. query_records text shows the first fields and says how many more and
// where; fetch names every field it leaves out (with or without a document text field), and
// read_record_field reads each of them whole.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { canonicalJson } from "../../src/core/canonical-json.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import { type OpenedStore, testBackends } from "../helpers/backends.js";
import { loadGrant, wideDocsManifest, wideManifest, wideRecord } from "./fixtures/wide.js";
import { BASE_URL, createClient } from "./fixtures/world.js";
import { call } from "./helpers.js";

const MAX = 40_000;

interface Doc {
  text: string;
  metadata: {
    fields_omitted?: string[];
    fields?: Record<string, unknown>;
    continue_with?: unknown;
    hint?: string;
  };
}

for (const backend of testBackends()) {
  describe(`wide records: every field has a visible path (${backend.name})`, () => {
    let opened: OpenedStore;
    let client: Client;
    let conn: string;
    let docsConn: string;
    const record = wideRecord("r1");
    const doc = { body: "A short body.", ...wideRecord("d1") };
    before(async () => {
      opened = await backend.open();
      const store = opened.store;
      const token = await loadGrant(store, { manifests: [wideManifest(), wideDocsManifest()] });
      conn = (await store.ensureConnection("wide", "Main")).connection_id;
      docsConn = (await store.ensureConnection("widedocs", "Main")).connection_id;
      await store.applyBatch(conn, "rows", [{ op: "upsert", data: record }]);
      await store.applyBatch(docsConn, "docs", [{ op: "upsert", data: doc }]);
      const app = createApp({ store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
      client = await createClient(
        new InProcessRsClient(async (r, env) => app.fetch(r, env), token, BASE_URL),
      );
    });
    after(async () => opened.cleanup());

    /** read_record_field returns each named field whole: its text, or its canonical JSON. */
    async function assertReadable(id: string, names: string[], data: Record<string, unknown>): Promise<void> {
      for (const name of names) {
        const r = await call(client, "read_record_field", { id, field_path: name });
        assert.equal(r.isError, false, `${name}: ${r.text.slice(0, 200)}`);
        const v = data[name];
        const expected = typeof v === "string" ? v : canonicalJson(v);
        assert.equal(r.text.slice(r.text.indexOf("\n") + 1), expected, name);
        assert.equal((r.structured.window as { text: string }).text, expected, name);
      }
    }

    test("3: query_records text shows the first fields, how many more, and where to read them", async () => {
      const r = await call(client, "query_records", { stream: "rows" });
      assert.equal(r.isError, false, r.text);
      assert.ok(Buffer.byteLength(r.text) <= 1_800, String(r.text.length));
      assert.doesNotMatch(r.text, /"data":"omitted/);
      const line = JSON.parse(r.text.split("\n")[1]) as { id: string; data: object; fields_omitted: string };
      const shown = Object.keys(line.data);
      assert.ok(shown.length >= 20, String(shown.length));
      const left = Object.keys(record).filter((k) => k !== "id" && !shown.includes(k));
      assert.equal(
        line.fields_omitted,
        `${left.length} more (${left[0]} … ${left[left.length - 1]}): fetch this id names them; read one with read_record_field {id, field_path}`,
      );
      // The structured channel carries the whole record (400 short fields fit).
      const data = r.structured.data as { data: { data: Record<string, unknown> }[] };
      assert.deepEqual(data.data[0].data, record);
    });

    test("3: fetch (no text field) names every field its JSON text leaves out; each reads whole", async () => {
      const id = `${conn}/rows:r1`;
      const f = await call(client, "fetch", { id });
      assert.equal(f.isError, false, f.text);
      assert.ok(f.text.length <= MAX);
      // A text-only client sees the document as JSON text: the same object as structuredContent.
      const seen = JSON.parse(f.text) as Doc;
      assert.deepEqual(seen, f.structured);
      const omitted = seen.metadata.fields_omitted ?? [];
      assert.ok(omitted.includes("col_399") && omitted.includes("col_298"));
      // Every field is either wholly in the text or named in fields_omitted.
      const whole = Object.keys(record).filter((k) => !omitted.includes(k));
      for (const k of whole)
        assert.ok(
          seen.text.includes(`${JSON.stringify(k)}:${JSON.stringify(record[k as keyof typeof record])}`),
          k,
        );
      assert.deepEqual([...whole, ...omitted].sort(), Object.keys(record).sort());
      assert.match(seen.metadata.hint ?? "", /read_record_field \{id, field_path\}/);
      assert.deepEqual(seen.metadata.continue_with, {
        tool: "read_record_field",
        args: { id, field_path: omitted[0] },
      });
      await assertReadable(id, [omitted[0], "col_298", "col_399"], record);
    });

    test("3: fetch with a text field names every other field that did not fit", async () => {
      const id = `${docsConn}/docs:d1`;
      const f = await call(client, "fetch", { id });
      assert.equal(f.isError, false, f.text);
      assert.ok(f.text.length <= MAX);
      const seen = JSON.parse(f.text) as Doc;
      assert.equal(seen.text, doc.body);
      const inline = Object.keys(seen.metadata.fields ?? {});
      const omitted = seen.metadata.fields_omitted ?? [];
      assert.ok(omitted.length > 50, String(omitted.length));
      assert.deepEqual(
        [...inline, ...omitted].sort(),
        Object.keys(doc)
          .filter((k) => k !== "body")
          .sort(),
      );
      await assertReadable(id, [omitted[0], omitted[omitted.length - 1]], doc);
    });
  });
}
