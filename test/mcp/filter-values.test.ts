// Typed filter values (issue 19 item 11): a JSON boolean or number is accepted wherever the field
// declares that type, over MCP (query_records, aggregate, search) and on the RS, on both stores.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { testBackends } from "../helpers/backends.js";
import { mcpOnStore, type OnStore } from "./fixtures/on-store.js";
import { call, errorOf } from "./helpers.js";

const TASKS: Manifest = {
  connector_key: "todo",
  display_name: "Tasks",
  version: "1",
  streams: [
    {
      name: "tasks",
      primary_key: ["id"],
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          title: { type: "string" },
          done: { type: "boolean" },
          priority: { type: "integer" },
          score: { type: "number" },
        },
      },
      query: {
        search: ["title"],
        exact_filters: ["done", "priority", "score"],
        range_filters: { priority: ["gte", "lte"], score: ["gt", "lt"] },
        aggregations: { group_by: ["done"] },
      },
    },
  ],
};

for (const backend of testBackends()) {
  describe(`filter values typed as JSON (issue 19 item 11, ${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let world: OnStore;
    before(async () => {
      opened = await backend.open();
      world = await mcpOnStore(opened.store, [TASKS]);
      const cid = (await opened.store.ensureConnection("todo", "Mine")).connection_id;
      await opened.store.applyBatch(
        cid,
        "tasks",
        Array.from({ length: 6 }, (_, i) => ({
          op: "upsert" as const,
          data: { id: `t${i}`, title: `chore ${i}`, done: i % 3 === 0, priority: i, score: i / 2 },
        })),
      );
    });
    after(async () => opened.cleanup());

    const ids = (r: { structured: Record<string, unknown> }) =>
      ((r.structured.data as { data: { record_id: string }[] }).data ?? []).map((d) => d.record_id).sort();

    test("query_records: true/false, integers and numbers as JSON values equal their text", async () => {
      for (const [value, text] of [
        [true, "true"],
        [false, "false"],
      ] as const) {
        const typed = await call(world.client, "query_records", {
          stream: "tasks",
          filter: [{ field: "done", op: "eq", value }],
        });
        assert.equal(typed.isError, false, typed.text);
        const stringly = await call(world.client, "query_records", {
          stream: "tasks",
          filter: [{ field: "done", op: "eq", value: text }],
        });
        assert.deepEqual(ids(typed), ids(stringly));
      }
      const done = await call(world.client, "query_records", {
        stream: "tasks",
        filter: [{ field: "done", op: "eq", value: true }],
      });
      assert.deepEqual(ids(done), ["t0", "t3"]);
      const prio = await call(world.client, "query_records", {
        stream: "tasks",
        filter: [
          { field: "priority", op: "gte", value: 2 },
          { field: "priority", op: "lte", value: 4 },
        ],
      });
      assert.deepEqual(ids(prio), ["t2", "t3", "t4"]);
      const score = await call(world.client, "query_records", {
        stream: "tasks",
        filter: [{ field: "score", op: "eq", value: 1.5 }],
      });
      assert.deepEqual(ids(score), ["t3"]);
    });

    test("aggregate and search take the same typed values", async () => {
      const agg = await call(world.client, "aggregate", {
        stream: "tasks",
        metric: "count",
        filter: [{ field: "done", op: "eq", value: false }],
      });
      assert.equal(agg.isError, false, agg.text);
      assert.match(agg.text, /^count\(tasks\) = 4 /);
      const s = await call(world.client, "search", {
        query: "chore",
        streams: ["tasks"],
        filter: [{ field: "priority", op: "eq", value: 5 }],
      });
      assert.equal(s.isError, false, s.text);
      assert.deepEqual(
        (s.structured.results as { record_id: string }[]).map((r) => r.record_id),
        ["t5"],
      );
    });

    test("a value of the wrong type is a typed invalid_filter, not a protocol error", async () => {
      const r = await call(world.client, "query_records", {
        stream: "tasks",
        filter: [{ field: "priority", op: "eq", value: true }],
      });
      assert.equal(r.isError, true);
      assert.equal(errorOf(r).code, "invalid_filter");
      assert.match(r.text, /needs an integer/);
      const obj = await call(world.client, "query_records", {
        stream: "tasks",
        filter: [{ field: "done", op: "eq", value: { x: 1 } }],
      });
      assert.equal(errorOf(obj).code, "invalid_filter");
    });

    test("the RS coerces filter[f]=true / =3 / =1.5 by the declared type", async () => {
      const bool = await world.rs("/v1/streams/tasks/records?filter[done]=true");
      assert.equal(bool.status, 200);
      assert.deepEqual((bool.body.data as { record_id: string }[]).map((d) => d.record_id).sort(), [
        "t0",
        "t3",
      ]);
      const int = await world.rs("/v1/streams/tasks/records?filter[priority]=3");
      assert.deepEqual(
        (int.body.data as { record_id: string }[]).map((d) => d.record_id),
        ["t3"],
      );
      const num = await world.rs("/v1/streams/tasks/records?filter[score][gt]=1.5");
      assert.deepEqual((num.body.data as { record_id: string }[]).map((d) => d.record_id).sort(), [
        "t4",
        "t5",
      ]);
      const bad = await world.rs("/v1/streams/tasks/records?filter[done]=yes");
      assert.equal(bad.status, 400);
    });
  });
}
