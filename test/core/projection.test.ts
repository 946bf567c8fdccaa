// Unit tests for grant projection with dotted paths.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deletePath, getPath, isPathGranted, projectData, setPath } from "../../src/core/projection.js";

const data = { id: "m1", subject: "Hi", sender: { email: "a@x", name: "A" }, body: "text", secret: "s" };

test("isPathGranted: a path or any of its ancestors", () => {
  assert.equal(isPathGranted("sender.email", ["sender"]), true);
  assert.equal(isPathGranted("sender", ["sender.email"]), false);
  assert.equal(isPathGranted("senderx", ["sender"]), false);
  assert.equal(isPathGranted("anything", "all"), true);
});

test("projectData: granted fields plus the primary key", () => {
  assert.deepEqual(projectData(data, { granted: ["subject"], primaryKey: ["id"] }), {
    subject: "Hi",
    id: "m1",
  });
  assert.deepEqual(projectData(data, { granted: "all", primaryKey: ["id"] }), data);
});

test("projectData: requested ∩ granted, dotted paths, pk always", () => {
  assert.deepEqual(
    projectData(data, {
      granted: ["subject", "sender.email", "body"],
      requested: ["sender", "secret"],
      primaryKey: ["id"],
    }),
    { sender: { email: "a@x" }, id: "m1" },
  );
  assert.deepEqual(projectData(data, { granted: "all", requested: ["sender.name"], primaryKey: ["id"] }), {
    sender: { name: "A" },
    id: "m1",
  });
  assert.deepEqual(
    projectData(data, { granted: ["sender"], requested: ["sender.name"], primaryKey: ["id"] }),
    {
      sender: { name: "A" },
      id: "m1",
    },
  );
});

test("getPath / setPath / deletePath", () => {
  const target: Record<string, unknown> = {};
  setPath(target, "a.b.c", 1);
  assert.deepEqual(target, { a: { b: { c: 1 } } });
  assert.equal(getPath(target, "a.b.c"), 1);
  assert.equal(getPath(target, "a.x.c"), undefined);
  deletePath(target, "a.b.c");
  assert.deepEqual(target, { a: { b: {} } });
  deletePath(target, "a");
  assert.deepEqual(target, {});
});
