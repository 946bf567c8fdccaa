// `pdpp grant create`'s shared --connections/--fields fitted to each --stream (pure).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitGrantRequest } from "../../src/cli/grant-fit.js";
import { buildGrantRequest } from "../../src/cli/grant-options.js";
import { PdppError } from "../../src/core/errors.js";
import type { Manifest, StreamDef } from "../../src/core/manifest.js";

const isUsage = (pattern: RegExp) => (e: unknown) =>
  e instanceof PdppError && e.code === "invalid_request" && pattern.test(e.message);

const stream = (name: string, fields: string[]): StreamDef => ({
  name,
  primary_key: [fields[0]!],
  schema: {
    type: "object",
    properties: Object.fromEntries(fields.map((f) => [f, { type: "string" as const }])),
  },
});

const MANIFESTS: Manifest[] = [
  {
    connector_key: "mbox",
    display_name: "Mail",
    version: "1",
    streams: [stream("messages", ["message_id", "subject", "from", "body"])],
  },
  {
    connector_key: "csv.bank",
    display_name: "Bank",
    version: "1",
    streams: [stream("transactions", ["id", "merchant", "amount"])],
  },
];
const CONNECTIONS = [
  { connection_id: "cin_aaaaaaaaaaaa", connector_key: "mbox" },
  { connection_id: "cin_bbbbbbbbbbbb", connector_key: "mbox" },
  { connection_id: "cin_cccccccccccc", connector_key: "csv.bank" },
];
const input = { connections: CONNECTIONS, manifests: MANIFESTS };
const fit = (flags: { stream: string[]; connections?: string; fields?: string }) =>
  fitGrantRequest(buildGrantRequest({ client: "c", ...flags }), input);

describe("fitGrantRequest", () => {
  it("gives each stream its own connector's connections and its own schema's fields", () => {
    const request = fit({
      stream: ["mbox:messages", "csv.bank:transactions"],
      connections: "cin_aaaaaaaaaaaa,cin_cccccccccccc",
      fields: "subject,from,merchant,amount",
    });
    assert.deepEqual(
      request.streams.map((s) => [s.connector_key, s.connections, s.fields]),
      [
        ["mbox", ["cin_aaaaaaaaaaaa"], ["subject", "from"]],
        ["csv.bank", ["cin_cccccccccccc"], ["merchant", "amount"]],
      ],
    );
  });

  it("leaves all/all untouched", () => {
    const request = fit({ stream: ["mbox:messages", "csv.bank:transactions"] });
    assert.deepEqual(
      request.streams.map((s) => [s.connections, s.fields]),
      [
        ["all", "all"],
        ["all", "all"],
      ],
    );
  });

  it("names the connection, field or stream that fits nowhere", () => {
    assert.throws(
      () => fit({ stream: ["mbox:messages"], connections: "cin_dddddddddddd" }),
      isUsage(/^--connections: no connection cin_dddddddddddd; see pdpp connections list\.$/),
    );
    assert.throws(
      () => fit({ stream: ["mbox:messages"], connections: "cin_cccccccccccc" }),
      isUsage(
        /^--connections: cin_cccccccccccc is a csv\.bank connection, and no --stream is of csv\.bank\.$/,
      ),
    );
    assert.throws(
      () => fit({ stream: ["mbox:messages", "csv.bank:transactions"], connections: "cin_aaaaaaaaaaaa" }),
      isUsage(/^--connections lists no csv\.bank connection for --stream csv\.bank:transactions;/),
    );
    assert.throws(
      () => fit({ stream: ["mbox:messages"], fields: "subjectt" }),
      isUsage(
        /^--fields: no granted stream has a field subjectt \(mbox:messages: message_id, subject, from, body\)\.$/,
      ),
    );
    assert.throws(
      () => fit({ stream: ["mbox:messages", "csv.bank:transactions"], fields: "subject" }),
      isUsage(
        /^--fields names no field of --stream csv\.bank:transactions \(it has id, merchant, amount\)\.$/,
      ),
    );
    assert.throws(
      () => fit({ stream: ["mbox:threads"] }),
      isUsage(/^--stream mbox:threads: mbox has no such stream \(mbox:messages\)\.$/),
    );
    assert.throws(
      () => fit({ stream: ["chatgpt:messages"] }),
      isUsage(
        /^--stream chatgpt:messages: no connector chatgpt in this store \(connectors: csv\.bank, mbox\)\.$/,
      ),
    );
  });
});
