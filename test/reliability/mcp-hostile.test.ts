// Hostile input through the MCP tools and resources (40-quality.md, reliability 2): malformed
// ids, handles, streams, connection ids and field paths fail with a typed error and ZERO RS calls
// (a spy counts them); no hostile argument ever yields internal_error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRecordRef, unsafeNameReason } from "../../src/core/ids.js";
import { testBackends } from "../helpers/backends.js";
import { openHarness } from "./fixtures/harness.js";
import { HOSTILE_VALUES } from "./fixtures/hostile-values.js";
import { KnownIssueTally } from "./fixtures/known-issues.js";
import { connectMcp } from "./fixtures/mcp-client.js";
import { allNotesGrant, seedNotes } from "./fixtures/notes-dataset.js";

function malformedId(id: string): boolean {
  try {
    parseRecordRef(id);
    return false;
  } catch {
    return true;
  }
}

const unsafe = (v: string) => unsafeNameReason(v) !== null;
const unsafePath = (v: string) => v.split(".").some(unsafe);
const b64 = (value: unknown) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

for (const backend of testBackends()) {
  test(`MCP hostile input on ${backend.name}: malformed ids/handles cost zero RS calls`, async (t) => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      const [conn] = await seedNotes(h, 3);
      const { token } = await h.createGrant(allNotesGrant());
      const mcp = await connectMcp(h, token);
      let cases = 0;
      let zeroCallCases = 0;
      const failures: string[] = [];
      const attempt = async (
        label: string,
        mustBeFree: boolean,
        run: () => Promise<{ isError: boolean; text: string }>,
      ) => {
        const before = mcp.rsCalls();
        let outcome: { isError: boolean; text: string };
        try {
          outcome = await run();
        } catch (error) {
          // A protocol error (e.g. the SDK rejecting arguments) is typed too; it must not be internal.
          outcome = { isError: true, text: String((error as Error).message) };
        }
        cases += 1;
        const calls = mcp.rsCalls() - before;
        if (/internal_error/.test(outcome.text))
          failures.push(`${label}: internal_error ${outcome.text.slice(0, 200)}`);
        if (mustBeFree) {
          zeroCallCases += 1;
          if (calls !== 0) failures.push(`${label}: ${calls} RS call(s) for malformed input`);
          if (!outcome.isError) failures.push(`${label}: malformed input did not fail`);
        }
      };
      const tool = (name: string, args: Record<string, unknown>) => () => mcp.call(name, args);
      for (const v of HOSTILE_VALUES) {
        const ids = [
          v,
          `${conn}/${v}`,
          `${v}/notes:n-0-1`,
          `${conn}/notes:${v}`,
          `${conn}/${v}:x`,
          `notes:${v}`,
          `${conn}//notes:${v}`,
        ];
        for (const id of ids) {
          const bad = malformedId(id);
          const label = JSON.stringify(id).slice(0, 80);
          await attempt(`fetch ${label}`, bad, tool("fetch", { id }));
          await attempt(
            `read_record_field ${label}`,
            bad,
            tool("read_record_field", { id, field_path: "body" }),
          );
        }
        const id = `${conn}/notes:n-0-1`;
        const s = JSON.stringify(v).slice(0, 60);
        await attempt(`field_path ${s}`, unsafePath(v), tool("read_record_field", { id, field_path: v }));
        await attempt(
          `rrf parts ${s}`,
          unsafe(v),
          tool("read_record_field", {
            connection_id: conn,
            stream: "notes",
            record_id: v,
            field_path: "body",
          }),
        );
        await attempt(`query_records stream ${s}`, unsafe(v), tool("query_records", { stream: v }));
        await attempt(
          `query_records connection ${s}`,
          unsafe(v),
          tool("query_records", { stream: "notes", connection_id: v }),
        );
        await attempt(`schema stream ${s}`, unsafe(v), tool("schema", { stream: v }));
        await attempt(`aggregate stream ${s}`, unsafe(v), tool("aggregate", { stream: v, metric: "count" }));
        await attempt(`search query ${s}`, false, tool("search", { query: v.length > 0 ? v : "x" }));
        await attempt(`search streams ${s}`, unsafe(v), tool("search", { query: "apple", streams: [v] }));
        await attempt(`query cursor ${s}`, false, tool("query_records", { stream: "notes", cursor: v }));
        await attempt(
          `filter value ${s}`,
          false,
          tool("query_records", { stream: "notes", filter: [{ field: "tag", op: "eq", value: v }] }),
        );
        await attempt(
          `filter field ${s}`,
          unsafePath(v),
          tool("query_records", { stream: "notes", filter: [{ field: v, op: "eq", value: "x" }] }),
        );
        await attempt(
          `window q ${s}`,
          false,
          tool("read_record_field", { id, field_path: "body", q: v.length > 0 ? v : "x" }),
        );
      }
      const handles = [
        "",
        "!!!",
        "%2e%2e",
        "../../etc",
        b64("not json"),
        b64({}),
        b64({ v: 2 }),
        b64({ v: 1, c: "../x", s: "notes", r: "a" }),
        b64({ v: 1, c: conn, s: "..", r: "a" }),
        b64({ v: 1, c: conn, s: "notes", r: "a/b" }),
        b64({ v: 1, c: conn, s: "notes" }),
        b64({ v: 1, c: conn, s: "notes", r: "\u0000" }),
        b64([1, 2]),
        b64("null"),
        "a".repeat(5000),
      ];
      for (const handle of handles) {
        for (const kind of ["record", "field-window", "blob"]) {
          const uri = `pdpp://${kind}/${handle}`;
          await attempt(`resource ${uri.slice(0, 80)}`, true, async () => {
            const result = await mcp.client.readResource({ uri });
            return { isError: false, text: JSON.stringify(result).slice(0, 300) };
          });
        }
      }
      await mcp.close();
      t.diagnostic(`${backend.name}: ${cases} MCP hostile cases, ${zeroCallCases} required zero RS calls`);
      console.log(
        `mcp-hostile ${backend.name}: ${cases} cases, ${zeroCallCases} zero-RS-call cases, ${failures.length} failures`,
      );
      const known = new KnownIssueTally();
      const unknown = failures.filter((f) => !known.tolerate(f));
      for (const line of known.lines()) console.log(`mcp-hostile ${backend.name}: ${line}`);
      assert.deepEqual(unknown.slice(0, 20), []);
    } finally {
      await opened.cleanup();
    }
  });
}
