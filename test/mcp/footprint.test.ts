// The footprint budgets of 30-mcp.md asserted on the fat fixtures, and exact paging when the
// adapter had to shrink a page to fit the 40,000-char result cap.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { measureFootprint, openBig } from "./fixtures/fat.js";

describe("footprint", () => {
  test("every budget of the table holds on the fat fixtures", async () => {
    const { rows, notes } = await measureFootprint();
    assert.deepEqual(notes, []);
    assert.equal(rows.length, 9);
    for (const row of rows)
      assert.ok(row.measured <= row.budget, `${row.what}: ${row.measured} > ${row.budget} ${row.unit}`);
  });

  describe("100 records with 50 KB bodies", () => {
    let big: Awaited<ReturnType<typeof openBig>>;
    before(async () => {
      big = await openBig();
    });
    after(() => big.close());

    test("a reduced page still pages exactly: every record once, none dropped", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let reducedNoted = false;
      for (let i = 0; i < 200; i++) {
        const r = (await big.client.callTool({
          name: "query_records",
          arguments: { stream: "letters", limit: 100, ...(cursor ? { cursor } : {}) },
        })) as unknown as {
          content: { text: string }[];
          structuredContent: {
            data: {
              data: { id: string }[];
              has_more: boolean;
              next_cursor: string | null;
              meta: { warnings: { code: string }[] };
            };
            content_ladder: { id: string; continue: { args: Record<string, unknown> } }[];
          };
        };
        const data = r.structuredContent.data;
        assert.ok(JSON.stringify(r.structuredContent).length <= 40_000);
        if (data.meta.warnings.some((w) => w.code === "limit_reduced")) {
          reducedNoted = true;
          assert.match(r.content[0].text, /limit reduced to \d+/);
        }
        for (const rec of data.data) seen.push(rec.id);
        // Every cut body has a continuation in the structured channel.
        for (const rec of data.data.filter((x) => !x.id.endsWith(":control-chars"))) {
          assert.ok(
            r.structuredContent.content_ladder.some(
              (e) => e.id === rec.id && e.continue.args.field_path === "body",
            ),
          );
        }
        // The text's next_cursor is the page's own when the text shows every record of it, else
        // it resumes after the records the text shows (issue 20 item 4).
        const next = /next_cursor=(\S+)/.exec(r.content[0].text)?.[1];
        const shown = r.content[0].text.split("\n").filter((l) => l.startsWith('{"id":')).length;
        if (shown === data.data.length) assert.equal(next === "null" ? null : next, data.next_cursor);
        else assert.ok(next && next !== "null" && next !== data.next_cursor);
        if (!data.has_more) break;
        cursor = data.next_cursor ?? undefined;
      }
      assert.ok(reducedNoted, "the fat page should have been reduced");
      assert.equal(seen.length, 101);
      assert.equal(new Set(seen).size, 101);
    });

    test("text previews carry read_record_field continuations that resume exactly", async () => {
      const r = (await big.client.callTool({
        name: "query_records",
        arguments: { stream: "letters", limit: 3 },
      })) as {
        content: { text: string }[];
      };
      const text = r.content[0].text;
      const line = text.split("\n").find((l) => l.startsWith('{"id"')) ?? "";
      const rec = JSON.parse(line) as {
        id: string;
        data: { body: string };
        cut: Record<string, [number, number]>;
      };
      const [shown, total] = rec.cut.body;
      assert.equal(total, 50_000);
      const w = (await big.client.callTool({
        name: "read_record_field",
        arguments: { id: rec.id, field_path: "body", offset_chars: shown, limit_chars: 10 },
      })) as unknown as { structuredContent: { window: { text: string; start_chars: number } } };
      assert.equal(w.structuredContent.window.start_chars, shown);
      assert.equal(rec.data.body.length, shown);
      assert.match(text, /continue with read_record_field/);
    });
  });
});
