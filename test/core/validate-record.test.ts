// Unit tests for pre-ingest payload validation.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamDef } from "../../src/core/manifest.js";
import { validateRecord } from "../../src/core/validate-record.js";

const stream: StreamDef = {
  name: "messages",
  primary_key: ["message_id"],
  time_field: "sent_at",
  text_fields: ["body"],
  schema: {
    type: "object",
    properties: {
      message_id: { type: "string" },
      sent_at: { type: "string", format: "date-time" },
      size_bytes: { type: "integer" },
      labels: { type: "array", items: { type: "string" } },
      body: { type: "string" },
      sender: { type: "object", properties: { email: { type: "string" } } },
    },
  },
};

test("validateRecord accepts good payloads and nulls", () => {
  assert.equal(
    validateRecord({ message_id: "a", sent_at: "2024-01-01", size_bytes: 3, labels: [], body: "x" }, stream),
    null,
  );
  assert.equal(
    validateRecord({ message_id: "7", sent_at: null, size_bytes: null, body: null }, stream),
    null,
  );
});

test("validateRecord names the problem", () => {
  assert.equal(validateRecord("x", stream), "data must be a JSON object");
  assert.equal(validateRecord([], stream), "data must be a JSON object");
  assert.equal(validateRecord({ body: "x" }, stream), "primary-key field message_id is missing");
  assert.equal(
    validateRecord({ message_id: { a: 1 } }, stream),
    "primary-key field message_id must be a string, number or boolean",
  );
  assert.equal(validateRecord({ message_id: "a", body: 5 }, stream), "text field body must be a string");
  assert.equal(
    validateRecord({ message_id: "a", sent_at: "yesterday-ish" }, stream),
    "time field sent_at is not a valid time",
  );
  assert.equal(
    validateRecord({ message_id: "a", size_bytes: 1.5 }, stream),
    "field size_bytes must be an integer",
  );
  assert.equal(validateRecord({ message_id: "a", labels: "x" }, stream), "field labels must be an array");
  assert.equal(
    validateRecord({ message_id: "a", sender: { email: 3 } }, stream),
    "field sender.email must be a string",
  );
});

test("validateRecord rejects what one of the stores could not store or fetch back", () => {
  assert.equal(
    validateRecord({ message_id: "a\ud800" }, stream),
    "primary-key field message_id holds NUL or an unpaired surrogate",
  );
  assert.equal(
    validateRecord({ message_id: "a", body: "x\u0000y" }, stream),
    "field body holds NUL or an unpaired surrogate, which cannot be stored",
  );
  assert.equal(
    validateRecord({ message_id: "a", labels: ["ok", "\udc00"] }, stream),
    "field labels[1] holds NUL or an unpaired surrogate, which cannot be stored",
  );
  assert.equal(validateRecord({ message_id: "😀 paired surrogates are fine" }, stream), null);
  // 171 spaces encode to 513 characters (%20 each): over the safe-name limit of ids.
  assert.equal(
    validateRecord({ message_id: " ".repeat(171) }, stream),
    "the encoded record id is 513 characters; at most 512 are allowed",
  );
  assert.equal(validateRecord({ message_id: " ".repeat(170) }, stream), null);
});
