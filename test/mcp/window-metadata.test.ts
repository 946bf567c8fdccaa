// read_record_field metadata exactly as seed 002 words it (issue 20 item 7), on both stores and in
// both channels: a window never exceeds the limit_chars it reports; complete is true exactly when
// nothing of the field is left after the window.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { mcpOnStore, type OnStore } from "./fixtures/on-store.js";
import { call } from "./helpers.js";

const NOTES: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      schema: {
        type: "object",
        properties: { id: { type: "string" }, body: { type: "string", contentMediaType: "text/plain" } },
      },
      text_fields: ["body"],
      query: { search: ["body"] },
    },
  ],
};

/** 21,457 code points (astral ones among them) with one "needle" in the middle. */
function bodyText(): string {
  const unit = "lorem 😀 ipsum dolor ";
  let text = "";
  while ([...text].length < 10_000) text += unit;
  text += "needle";
  while ([...text].length < 21_457) text += "x";
  return [...text].slice(0, 21_457).join("");
}

interface Window {
  text: string;
  start_chars: number;
  end_chars: number;
  limit_chars: number;
  complete: boolean;
  next_cursor: string | null;
}

function channels(r: { text: string; structured: Record<string, unknown> }) {
  const nl = r.text.indexOf("\n");
  const header = JSON.parse(r.text.slice(0, nl)) as {
    start: number;
    end: number;
    total: number;
    complete: boolean;
    next_cursor: string | null;
  };
  return { header, text: r.text.slice(nl + 1), window: r.structured.window as Window };
}

for (const backend of testBackends()) {
  describe(`read_record_field metadata (issue 20 item 7, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let world: OnStore;
    let id: string;
    const body = bodyText();
    const cps = [...body];
    before(async () => {
      opened = await backend.open();
      world = await mcpOnStore(opened.store, [NOTES]);
      const cid = (await opened.store.ensureConnection("notes", "Mine")).connection_id;
      await opened.store.applyBatch(cid, "notes", [{ op: "upsert", data: { id: "n1", body } }]);
      id = `${cid}/notes:n1`;
    });
    after(async () => opened.cleanup());

    test("complete is true exactly when nothing is left after the window, in both channels", async () => {
      let args: Record<string, unknown> = { id, field_path: "body", limit_chars: 8000 };
      let whole = "";
      for (;;) {
        const r = await call(world.client, "read_record_field", args);
        assert.equal(r.isError, false, r.text);
        const { header, text, window } = channels(r);
        whole += text;
        const left = window.end_chars < cps.length;
        assert.equal(window.complete, !left, `window ${window.start_chars}-${window.end_chars}`);
        assert.equal(header.complete, window.complete);
        assert.equal(window.next_cursor === null, !left);
        assert.equal(header.next_cursor, window.next_cursor);
        if (!window.next_cursor) {
          assert.deepEqual([header.end, header.total, header.complete], [21_457, 21_457, true]);
          // Nothing after the last window: no resource_link to a next one either.
          assert.ok(!r.content.some((c) => c.type === "resource_link"));
          break;
        }
        args = { id, field_path: "body", cursor: window.next_cursor };
      }
      assert.equal(whole, body);
      // A window that starts past 0 and reaches the end is complete; one that stops short is not.
      const tail = channels(
        await call(world.client, "read_record_field", { id, field_path: "body", offset_chars: 21_000 }),
      );
      assert.equal(tail.window.complete, true);
      const head = channels(await call(world.client, "read_record_field", { id, field_path: "body" }));
      assert.deepEqual(
        [head.window.end_chars, head.window.complete, head.header.complete],
        [4096, false, false],
      );
    });

    test("q windows never exceed the limit_chars they report", async () => {
      const cases: [Record<string, unknown>, number][] = [
        [{ q: "needle", before_chars: 8192, after_chars: 8192 }, 16_384],
        [{ q: "needle", limit_chars: 100 }, 100],
        [{ q: "needle", limit_chars: 100, before_chars: 8192, after_chars: 8192 }, 100],
        [{ q: "needle" }, 4096 + 6],
        [{ q: "needle", before_chars: 10, after_chars: 0 }, 16],
        [{ q: "needle", limit_chars: 3 }, 3],
        [{ q: "nowhere", limit_chars: 100 }, 100],
      ];
      const at = body.indexOf("needle");
      const atCp = [...body.slice(0, at)].length;
      for (const [selector, limit] of cases) {
        const r = await call(world.client, "read_record_field", { id, field_path: "body", ...selector });
        assert.equal(r.isError, false, r.text);
        const { header, text, window } = channels(r);
        const size = [...window.text].length;
        const what = JSON.stringify(selector);
        assert.equal(window.limit_chars, limit, what);
        assert.ok(size <= window.limit_chars, `${what}: ${size} > ${window.limit_chars}`);
        assert.equal(size, window.end_chars - window.start_chars, what);
        assert.equal(text, window.text);
        assert.equal(window.text, cps.slice(window.start_chars, window.end_chars).join(""), what);
        assert.equal(header.end - header.start, size);
        if (selector.q === "needle" && limit >= 6) {
          // The match stays whole inside the window.
          assert.ok(window.start_chars <= atCp && window.end_chars >= atCp + 6, what);
          assert.equal(size, Math.min(limit, cps.length), what);
        }
      }
    });
  });
}
