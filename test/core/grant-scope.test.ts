// Unit tests for scope resolution: owner sees all, grants see only what they list.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PdppError } from "../../src/core/errors.js";
import { type Grant, scopeGrantsPath } from "../../src/core/grant.js";
import { type Catalog, connectionCount, scopesForStream, visibleScopes } from "../../src/core/grant-scope.js";
import { CHAT_MANIFEST, MAIL_MANIFEST } from "../rs/fixture-manifests.js";

const conn = (id: string, key: string) => ({
  connection_id: id,
  connector_key: key,
  display_name: id,
  created_at: "",
});
const catalog: Catalog = {
  manifests: [MAIL_MANIFEST, CHAT_MANIFEST],
  connections: [
    conn("cin_00000000000b", "mail"),
    conn("cin_00000000000a", "mail"),
    conn("cin_00000000000c", "chat"),
  ],
};
const grant = (streams: Grant["streams"]): Grant => ({
  grant_id: "grt_0000000000000001",
  client_name: "t",
  purpose: "",
  created_at: "",
  expires_at: null,
  revoked_at: null,
  streams,
});
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as PdppError).code;
  }
  return "none";
};

describe("core/grant-scope", () => {
  it("gives the owner every stream of every connector with connections", () => {
    const scopes = visibleScopes({ kind: "owner" }, catalog);
    assert.deepEqual(
      scopes.map((s) => [s.connectorKey, s.stream.name, s.connectionIds, s.fields]),
      [
        ["chat", "messages", ["cin_00000000000c"], "all"],
        ["mail", "messages", ["cin_00000000000a", "cin_00000000000b"], "all"],
        ["mail", "contacts", ["cin_00000000000a", "cin_00000000000b"], "all"],
      ],
    );
    assert.equal(connectionCount(scopesForStream({ kind: "owner" }, catalog, { stream: "messages" })), 3);
  });

  it("limits a grant to its streams, connections, fields and time range", () => {
    const bearer = {
      kind: "client" as const,
      grant: grant([
        {
          stream: "messages",
          connector_key: "mail",
          connections: ["cin_00000000000b", "cin_0000000000ff"],
          fields: ["subject"],
          time_range: { since: "2024-01-01", until: null },
        },
      ]),
    };
    const scopes = visibleScopes(bearer, catalog);
    assert.deepEqual(scopes, [
      {
        connectorKey: "mail",
        stream: MAIL_MANIFEST.streams[0],
        connectionIds: ["cin_00000000000b"],
        fields: ["subject"],
        since: "2024-01-01T00:00:00.000Z",
        until: null,
      },
    ]);
    assert.equal(
      code(() => scopesForStream(bearer, catalog, { stream: "contacts" })),
      "stream_not_found",
    );
    assert.equal(
      code(() => scopesForStream(bearer, catalog, { stream: "messages", connectionId: "cin_00000000000a" })),
      "connection_not_found",
    );
    assert.deepEqual(
      scopesForStream(bearer, catalog, { stream: "messages", connectionId: "cin_00000000000b" }).map(
        (s) => s.connectionIds,
      ),
      [["cin_00000000000b"]],
    );
  });
});

it("scopeGrantsPath: granted paths, their children, and primary-key fields", () => {
  const scope = {
    connectorKey: "mbox",
    stream: {
      name: "messages",
      primary_key: ["message_id"],
      schema: { type: "object" as const, properties: {} },
    },
    connectionIds: ["cin_000000000001"],
    fields: ["subject", "sender"],
    since: null,
    until: null,
  };
  assert.equal(scopeGrantsPath(scope, "subject"), true);
  assert.equal(scopeGrantsPath(scope, "sender.email"), true);
  assert.equal(scopeGrantsPath(scope, "message_id"), true);
  assert.equal(scopeGrantsPath(scope, "body"), false);
  assert.equal(scopeGrantsPath(scope, "message_idx"), false);
});
