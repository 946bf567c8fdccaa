// `pdpp grant create` flags → the owner API's grant request (pure).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildGrantRequest } from "../../src/cli/grant-options.js";
import { PdppError } from "../../src/core/errors.js";

const isUsage = (pattern: RegExp) => (e: unknown) =>
  e instanceof PdppError && e.code === "invalid_request" && pattern.test(e.message);

describe("buildGrantRequest", () => {
  it("defaults to all connections and fields with no time range", () => {
    assert.deepEqual(
      buildGrantRequest({ client: "claude", stream: ["mbox:messages", "chatgpt:conversations"] }),
      {
        client_name: "claude",
        purpose: "",
        expires_at: null,
        streams: [
          { stream: "messages", connector_key: "mbox", connections: "all", fields: "all", time_range: null },
          {
            stream: "conversations",
            connector_key: "chatgpt",
            connections: "all",
            fields: "all",
            time_range: null,
          },
        ],
      },
    );
  });

  it("parses connections, fields, time bounds and expiry", () => {
    const request = buildGrantRequest({
      client: "codex",
      stream: ["csv.bank:transactions"],
      connections: "cin_0123456789ab, cin_ba9876543210",
      fields: "amount,merchant.name",
      since: "2024-01-01",
      until: "2024-07-01T12:00:00+02:00",
      expires: "2030-01-01T00:00:00Z",
      purpose: "budgeting",
    });
    assert.deepEqual(request, {
      client_name: "codex",
      purpose: "budgeting",
      expires_at: "2030-01-01T00:00:00.000Z",
      streams: [
        {
          stream: "transactions",
          connector_key: "csv.bank",
          connections: ["cin_0123456789ab", "cin_ba9876543210"],
          fields: ["amount", "merchant.name"],
          time_range: { since: "2024-01-01T00:00:00.000Z", until: "2024-07-01T10:00:00.000Z" },
        },
      ],
    });
  });

  it("rejects malformed flags with a message that says what to pass", () => {
    assert.throws(
      () => buildGrantRequest({ client: "c", stream: [] }),
      isUsage(/--stream <connector_key>:<stream>/),
    );
    assert.throws(() => buildGrantRequest({ client: "c", stream: ["messages"] }), isUsage(/must look like/));
    assert.throws(() => buildGrantRequest({ client: "c", stream: ["a:b:c"] }), isUsage(/must look like/));
    assert.throws(() => buildGrantRequest({ client: "c", stream: ["m:x", "m:x"] }), isUsage(/given twice/));
    assert.throws(() => buildGrantRequest({ client: " ", stream: ["m:x"] }), isUsage(/--client/));
    assert.throws(
      () => buildGrantRequest({ client: "c", stream: ["m:x"], connections: "cin_x" }),
      isUsage(/cin_x/),
    );
    assert.throws(
      () => buildGrantRequest({ client: "c", stream: ["m:x"], fields: "a,b/c" }),
      isUsage(/b\/c/),
    );
    assert.throws(
      () => buildGrantRequest({ client: "c", stream: ["m:x"], since: "yesterday" }),
      isUsage(/--since/),
    );
    assert.throws(
      () => buildGrantRequest({ client: "c", stream: ["m:x"], since: "2024-02-01", until: "2024-01-01" }),
      isUsage(/before --until/),
    );
  });
});
