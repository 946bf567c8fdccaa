// Unit tests for manifest validation: shape, unknown keys and cross-checks.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PdppError } from "../../src/core/errors.js";
import { validateManifest } from "../../src/core/manifest-validate.js";
import { CHAT_MANIFEST, MAIL_MANIFEST } from "../rs/fixture-manifests.js";

const problem = (
  mutate: (m: Record<string, unknown> & { streams: Record<string, unknown>[] }) => void,
): string => {
  const m = structuredClone(MAIL_MANIFEST) as unknown as Record<string, unknown> & {
    streams: Record<string, unknown>[];
  };
  mutate(m);
  try {
    validateManifest(m);
  } catch (err) {
    const e = err as PdppError;
    assert.equal(e.code, "manifest_invalid");
    assert.equal(e.status, 422);
    return e.message;
  }
  throw new Error("expected manifest_invalid");
};

describe("core/manifest-validate", () => {
  it("accepts the fixtures unchanged", () => {
    assert.deepEqual(validateManifest(structuredClone(MAIL_MANIFEST)), MAIL_MANIFEST);
    assert.deepEqual(validateManifest(structuredClone(CHAT_MANIFEST)), CHAT_MANIFEST);
  });

  it("rejects unknown keys, bad names and missing fields with a clear message", () => {
    assert.match(
      problem((m) => Object.assign(m, { extra: 1 })),
      /extra/,
    );
    assert.match(
      problem((m) => Object.assign(m.streams[0], { surprise: true })),
      /surprise/,
    );
    assert.match(
      problem((m) => Object.assign(m, { connector_key: "Bad Key" })),
      /connector_key/,
    );
    assert.match(
      problem((m) => Object.assign(m.streams[0], { name: "9x" })),
      /streams\.0\.name/,
    );
    assert.match(
      problem((m) => Object.assign(m.streams[0], { primary_key: ["missing"] })),
      /primary_key: field 'missing' is not in the schema/,
    );
    assert.match(
      problem((m) => Object.assign(m.streams[0], { text_fields: ["nope"] })),
      /text_fields: field 'nope'/,
    );
    assert.match(
      problem((m) => Object.assign(m.streams[0], { time_field: "subject" })),
      /time_field: field 'subject' must be a date-time/,
    );
    assert.match(
      problem((m) => {
        (m.streams[0].query as { aggregations: { group_by_time: string[] } }).aggregations.group_by_time = [
          "from",
        ];
      }),
      /group_by_time: field 'from' must be a date-time or date string/,
    );
    assert.match(
      problem((m) => {
        (m.streams[0].query as { exact_filters: string[] }).exact_filters = ["ghost"];
      }),
      /query\.exact_filters: field 'ghost' is not in the schema/,
    );
    assert.match(
      problem((m) => m.streams.push(structuredClone(m.streams[1]))),
      /declared twice/,
    );
    assert.match(
      problem((m) => Object.assign(m, { streams: [] })),
      /streams/,
    );
  });
});
