// Every renderer cuts only at code-point boundaries (issue 20 item 5): each is fed texts of astral
// characters behind a prefix of 0..N ASCII units, so each of its cut points falls on every side of
// a surrogate pair; every output must be well-formed UTF-16 and never print a `\ud83d` escape.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clipText, clipUnits, headUnits, tailUnits } from "../../../src/core/clip-text.js";
import { PdppError } from "../../../src/core/errors.js";
import { renderAggregateText } from "../../../src/core/render/aggregate-text.js";
import { boundTitle, clipBytes, sliceCodePoints } from "../../../src/core/render/budget.js";
import { buildFetchDocument } from "../../../src/core/render/fetch-doc.js";
import { cutPayload } from "../../../src/core/render/record-preview.js";
import { renderRecordsText } from "../../../src/core/render/records-text.js";
import { clipDescriptions } from "../../../src/core/render/schema-text.js";
import { clipSnippet, renderSearchText, type SearchResultRow } from "../../../src/core/render/search-text.js";
import type {
  AggregateAnswer,
  ListEnvelope,
  SchemaAnswer,
  SearchHit,
  WireRecord,
} from "../../../src/core/wire.js";
import { toToolError } from "../../../src/mcp/tool-errors.js";
import { isWellFormedText } from "../../mcp/helpers.js";

const LONE = /\\u[dD][89abAB][0-9a-fA-F]{2}/;
const PREFIXES = Array.from({ length: 8 }, (_, k) => k);

function astral(k: number, n: number): string {
  return "a".repeat(k) + "😀🎉𝄞".repeat(Math.ceil(n / 3)).slice(0, 2 * n);
}

function wellFormed(value: unknown, what: string): void {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  assert.ok(isWellFormedText(text), `${what}: lone surrogate`);
  assert.doesNotMatch(text, LONE, `${what}: surrogate escape`);
}

function record(k: number, n: number, i = 0): WireRecord {
  return {
    object: "record",
    id: `cin_1/posts:r${i}`,
    stream: "posts",
    record_id: `r${i}`,
    connection_id: "cin_1",
    connector_key: "astral",
    display_name: astral(k, 40),
    emitted_at: "2024-01-01T00:00:00Z",
    time: null,
    data: { id: `r${i}`, body: astral(k, n), title: astral(k + 1, n), tags: [astral(k, n)] },
  };
}

describe("renderers cut at code-point boundaries (issue 20 item 5)", () => {
  test("text helpers", () => {
    for (const k of PREFIXES) {
      const s = astral(k, 300);
      for (let max = 0; max < 80; max++) {
        for (const out of [
          clipText(s, max),
          clipUnits(s, Math.max(1, max)),
          headUnits(s, max),
          tailUnits(s, max),
          sliceCodePoints(s, max),
          clipBytes(s, max + 4),
          boundTitle(s),
        ])
          wellFormed(out, `k=${k} max=${max}`);
      }
    }
  });

  test("aggregate text: keys, labels and the whole line at every length", () => {
    for (const k of PREFIXES) {
      for (const n of [10, 29, 30, 31, 59, 60, 61, 200, 700]) {
        const answer = {
          object: "aggregate",
          stream: "posts",
          metric: "count",
          groups: Array.from({ length: 30 }, (_, i) => ({ key: astral(k + (i % 2), n), value: i })),
          group_count: 30,
          other_count: 0,
          filtered_record_count: 30,
          meta: { warnings: [] },
        } as unknown as AggregateAnswer;
        wellFormed(renderAggregateText(answer, { groupBy: astral(k, n) }), `grouped k=${k} n=${n}`);
        const scalar = { ...answer, groups: undefined, value: astral(k, n) } as unknown as AggregateAnswer;
        wellFormed(renderAggregateText(scalar), `scalar k=${k} n=${n}`);
      }
    }
  });

  test("search text: snippets cut before the first mark, titles, labels", () => {
    for (const k of PREFIXES) {
      for (const n of [20, 40, 41, 60, 100, 300]) {
        const snippet = `${astral(k, n)} <mark>walnut</mark> ${astral(k, n)}`;
        for (const bytes of [40, 80, 160, 161, 162, 163])
          wellFormed(clipSnippet(snippet, bytes), `snippet k=${k}`);
        const rows: SearchResultRow[] = Array.from({ length: 12 }, (_, i) => ({
          id: `cin_${i}/posts:r${i}`,
          title: astral(k, n),
          url: "u",
          connection_id: `cin_${i}`,
          connector_key: "astral",
          display_name: astral(k, n),
          stream: "posts",
          record_id: `r${i}`,
          time: null,
          snippet,
          snippet_field: "body",
          matched_fields: ["body"],
          score: 1,
        }));
        const envelope = {
          object: "list",
          data: [],
          has_more: true,
          next_cursor: "c",
          meta: { warnings: [], unmatched_terms: [astral(k, n)] },
        } as unknown as ListEnvelope<SearchHit>;
        wellFormed(renderSearchText(envelope, rows), `search k=${k} n=${n}`);
        wellFormed(renderSearchText(envelope, []), `search none k=${k} n=${n}`);
      }
    }
  });

  test("records text and structured previews at every preview size", () => {
    for (const k of PREFIXES) {
      for (const n of [8, 23, 24, 25, 63, 64, 65, 159, 160, 161, 3000]) {
        const envelope: ListEnvelope<WireRecord> = {
          object: "list",
          data: Array.from({ length: 6 }, (_, i) => record(k, n, i)),
          has_more: true,
          next_cursor: "c",
          meta: { warnings: [] },
        };
        wellFormed(
          renderRecordsText(envelope, { stream: "posts", narrowed: false }),
          `records k=${k} n=${n}`,
        );
        for (const max of [8, 24, 32, 64, 128, 512])
          wellFormed(cutPayload(record(k, n).data, max), `cut k=${k}`);
      }
    }
  });

  test("fetch documents: text field and the JSON fallback cut at 4,096", () => {
    for (const k of PREFIXES) {
      for (const n of [100, 2047, 2048, 2049, 9000]) {
        const r = record(k, n);
        const stream = {
          name: "posts",
          title_field: "title",
          fields: { body: { text_like: true, granted: true } },
        } as unknown as Parameters<typeof buildFetchDocument>[2]["stream"];
        wellFormed(
          buildFetchDocument(r.id, r, { stream, providerUrl: null, narrowed: false }),
          `fetch k=${k}`,
        );
        const plain = { ...r, data: { id: "r0", meta: { a: astral(k, n), b: [astral(k + 1, n)] } } };
        wellFormed(
          buildFetchDocument(r.id, plain, { providerUrl: null, narrowed: false }),
          `fetch json k=${k}`,
        );
      }
    }
  });

  test("schema documents shrink descriptions; error texts clip at the result cap", () => {
    for (const k of PREFIXES) {
      const doc = {
        streams: Array.from({ length: 40 }, (_, i) => ({
          name: `s${i}`,
          fields: { body: { description: astral(k, 1200) } },
        })),
      } as unknown as SchemaAnswer;
      for (const limit of [400, 120, 41, 40, 39, 1])
        wellFormed(clipDescriptions(doc, limit), `schema k=${k}`);
      const error = toToolError(new PdppError("invalid_request", astral(k, 30_000)));
      wellFormed(error.content[0].text, `error k=${k}`);
    }
  });
});
