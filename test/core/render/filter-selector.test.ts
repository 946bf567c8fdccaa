// Pure checks of the typed filter and the field-window selector rules.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PdppError } from "../../../src/core/errors.js";
import { checkFilter, filterParams } from "../../../src/core/render/filter.js";
import { checkSelector, selectorParams } from "../../../src/core/render/selector.js";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as PdppError).code;
  }
  return "no error";
};

describe("typed filter", () => {
  test("encodes eq as filter[f]=v and ranges as filter[f][op]=v", () => {
    const conds = checkFilter([
      { field: "from", op: "eq", value: "a@x" },
      { field: "sent_at", op: "gte", value: "2024-01-01" },
    ]);
    assert.deepEqual(filterParams(conds), [
      ["filter[from]", "a@x"],
      ["filter[sent_at][gte]", "2024-01-01"],
    ]);
    assert.deepEqual(filterParams(undefined), []);
    assert.equal(checkFilter(undefined), undefined);
  });
  test("rejects strings, empty lists, unknown ops, brackets, object/null values, extra keys", () => {
    for (const bad of [
      "from=a",
      [],
      [{ field: "a", op: "ne", value: "x" }],
      [{ field: "a]", op: "eq", value: "x" }],
      [{ field: "a", op: "eq", value: { n: 3 } }],
      [{ field: "a", op: "eq", value: null }],
      [{ field: "a", op: "eq", value: "x", extra: 1 }],
      Array.from({ length: 17 }, () => ({ field: "a", op: "eq", value: "x" })),
    ]) {
      assert.equal(
        code(() => checkFilter(bad)),
        "invalid_filter",
        JSON.stringify(bad).slice(0, 60),
      );
    }
  });

  test("a JSON number or boolean is its text (issue 19 item 11)", () => {
    assert.deepEqual(
      checkFilter([
        { field: "a", op: "eq", value: 3 },
        { field: "b", op: "gte", value: -1.5 },
        { field: "c", op: "eq", value: false },
      ]),
      [
        { field: "a", op: "eq", value: "3" },
        { field: "b", op: "gte", value: "-1.5" },
        { field: "c", op: "eq", value: "false" },
      ],
    );
  });
});

describe("selector rules", () => {
  test("no selector is offset 0; each kind encodes its RS params", () => {
    assert.deepEqual(checkSelector({}), { kind: "range", offset_chars: 0, limit_chars: undefined });
    assert.deepEqual(selectorParams(checkSelector({ offset_chars: 5, limit_chars: 10 })), [
      ["offset_chars", "5"],
      ["limit_chars", "10"],
    ]);
    assert.deepEqual(selectorParams(checkSelector({ q: "x", before_chars: 1 })), [
      ["q", "x"],
      ["before_chars", "1"],
    ]);
    assert.deepEqual(selectorParams(checkSelector({ cursor: "ab.cd" })), [["cursor", "ab.cd"]]);
  });
  test("violations name their rule", () => {
    assert.equal(
      code(() => checkSelector({ cursor: "a.b", q: "x" })),
      "invalid_field_window_selector",
    );
    // 002 lets limit_chars size the window of a cursor or of a q.
    assert.deepEqual(checkSelector({ cursor: "a.b", limit_chars: 5 }), {
      kind: "cursor",
      cursor: "a.b",
      limit_chars: 5,
    });
    assert.deepEqual(selectorParams(checkSelector({ q: "x", limit_chars: 100 })), [
      ["q", "x"],
      ["limit_chars", "100"],
    ]);
    assert.equal(
      code(() => checkSelector({ q: "x", offset_chars: 1 })),
      "invalid_field_window_selector",
    );
    assert.equal(
      code(() => checkSelector({ after_chars: 1 })),
      "invalid_field_window_selector",
    );
    assert.equal(
      code(() => checkSelector({ limit_chars: 16_385 })),
      "invalid_field_window_selector",
    );
    assert.equal(
      code(() => checkSelector({ before_chars: 8_193, q: "x" })),
      "invalid_field_window_selector",
    );
    assert.equal(
      code(() => checkSelector({ cursor: "../x" })),
      "invalid_cursor",
    );
  });
});
