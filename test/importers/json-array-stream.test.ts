// The streaming JSON array reader: element boundaries across chunks, strings with brackets, errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type JsonElement, streamJsonArray } from "../../src/importers/json-array-stream.js";

async function read(text: string, chunkSize: number): Promise<JsonElement[]> {
  const bytes = Buffer.from(text);
  async function* gen() {
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  const out: JsonElement[] = [];
  for await (const e of streamJsonArray(gen())) out.push(e);
  return out;
}

test("splits elements at any chunk size, with tricky strings and nesting", async () => {
  const text = '\ufeff [ {"a":"x],}\\"{"}, [1,[2]] ,"é\\\\", 3.5 , null,{"n":{"m":[{}]}} ]\n';
  for (const size of [1, 2, 3, 7, 1000]) {
    const got = await read(text, size);
    assert.deepEqual(
      got.map((e) => ("value" in e ? e.value : e.error)),
      [{ a: 'x],}"{' }, [1, [2]], "é\\", 3.5, null, { n: { m: [{}] } }],
      `chunk ${size}`,
    );
    assert.deepEqual(
      got.map((e) => e.offset),
      [6, 23, 32, 40, 46, 51],
    );
  }
});

test("an empty array yields nothing; a non-array and a truncated file yield one error each", async () => {
  assert.deepEqual(await read(" [ ] ", 2), []);
  assert.deepEqual(await read('{"a":1}', 3), [
    { error: "expected a top-level JSON array ([…])", index: 0, offset: 0, element: false },
  ]);
  assert.deepEqual(await read('[{"a":1},{"b":', 4), [
    { value: { a: 1 }, index: 0, offset: 1 },
    { error: "the JSON array is not closed (file truncated?)", index: 1, offset: 9 },
  ]);
  const trailing = await read("[1] x", 1);
  assert.deepEqual(trailing[1], {
    error: "unexpected data after the top-level array",
    index: 1,
    offset: 4,
    element: false,
  });
});
