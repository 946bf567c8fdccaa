// Contract: manifests, connections, secrets, owner tokens, grants and the access log.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connectionIdFor, hashToken } from "../../../src/core/ids.js";
import type { Store, StoredGrant } from "../../../src/store/store.js";
import type { OpenedStore, TestBackend } from "../../helpers/backends.js";
import { CONNECTOR, MANIFEST } from "./fixtures.js";

export function adminContract(backend: TestBackend): void {
  describe("manifests, connections, tokens, grants, access log", () => {
    let opened: OpenedStore;
    let store: Store;
    before(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    after(async () => opened.cleanup());

    test("secret() is random, named and stable", async () => {
      const one = await store.secret("cursor-hmac");
      assert.match(one, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(await store.secret("cursor-hmac"), one);
      assert.notEqual(await store.secret("other"), one);
    });

    test("manifests round-trip and replace", async () => {
      assert.equal(await store.getManifest(CONNECTOR), null);
      await store.putManifest(MANIFEST);
      assert.deepEqual(await store.getManifest(CONNECTOR), MANIFEST);
      const changed = { ...MANIFEST, display_name: "Renamed" };
      await store.putManifest(changed);
      assert.deepEqual(await store.getManifest(CONNECTOR), changed);
      await store.putManifest({ ...MANIFEST, connector_key: "aaa" });
      assert.deepEqual(
        (await store.listManifests()).map((m) => m.connector_key),
        ["aaa", CONNECTOR],
      );
      await store.putManifest(MANIFEST);
    });

    test("ensureConnection is idempotent with stable ids", async () => {
      const first = await store.ensureConnection(CONNECTOR, "Work mail");
      assert.equal(first.connection_id, connectionIdFor(CONNECTOR, "Work mail"));
      assert.match(first.connection_id, /^cin_[0-9a-f]{12}$/);
      assert.equal(first.connector_key, CONNECTOR);
      assert.equal(first.display_name, "Work mail");
      assert.ok(!Number.isNaN(Date.parse(first.created_at)));
      const again = await store.ensureConnection(CONNECTOR, "Work mail");
      assert.deepEqual(again, first);
      const other = await store.ensureConnection(CONNECTOR, "Home mail");
      assert.notEqual(other.connection_id, first.connection_id);
      assert.deepEqual(await store.getConnection(first.connection_id), first);
      assert.equal(await store.getConnection("cin_000000000000"), null);
      const ids = (await store.listConnections()).map((c) => c.connection_id);
      assert.deepEqual(ids, [first.connection_id, other.connection_id].sort());
    });

    test("deleteConnection removes it and its records", async () => {
      const conn = await store.ensureConnection(CONNECTOR, "Temp");
      await store.applyBatch(conn.connection_id, "messages", [
        { op: "upsert", data: { message_id: "x1", subject: "s" } },
      ]);
      assert.equal(await store.deleteConnection(conn.connection_id), true);
      assert.equal(await store.getConnection(conn.connection_id), null);
      assert.equal(await store.deleteConnection(conn.connection_id), false);
      const again = await store.ensureConnection(CONNECTOR, "Temp");
      const scope = {
        connectorKey: CONNECTOR,
        stream: MANIFEST.streams[0],
        connectionIds: [again.connection_id],
        fields: "all" as const,
        since: null,
        until: null,
      };
      assert.deepEqual(await store.countRecords(scope), { [again.connection_id]: 0 });
      assert.equal(await store.getRecord(scope, { connectionId: again.connection_id, recordId: "x1" }), null);
      await store.deleteConnection(again.connection_id);
    });

    test("owner tokens are stored by hash only", async () => {
      const hash = hashToken("pdpp_ot_example");
      assert.equal(await store.isOwnerToken(hash), false);
      await store.putOwnerToken(hash);
      await store.putOwnerToken(hash);
      assert.equal(await store.isOwnerToken(hash), true);
      assert.equal(await store.isOwnerToken(hashToken("pdpp_ot_other")), false);
    });

    const grant: StoredGrant = {
      grant_id: "grt_0123456789abcdef",
      client_name: "claude-desktop",
      purpose: "testing",
      created_at: "2024-05-01T00:00:00.000Z",
      expires_at: null,
      revoked_at: null,
      token_hash: hashToken("pdpp_ct_secret-token"),
      streams: [
        {
          stream: "messages",
          connector_key: CONNECTOR,
          connections: "all",
          fields: ["subject", "from"],
          time_range: { since: "2024-01-01T00:00:00.000Z", until: null },
        },
      ],
    };

    test("grants round-trip by id and token hash; revocation is first-wins", async () => {
      await store.createGrant(grant);
      assert.deepEqual(await store.getGrant(grant.grant_id), grant);
      assert.deepEqual(await store.getGrantByTokenHash(grant.token_hash), grant);
      assert.equal(await store.getGrantByTokenHash(hashToken("pdpp_ct_nope")), null);
      assert.equal(await store.getGrant("grt_ffffffffffffffff"), null);
      const second = {
        ...grant,
        grant_id: "grt_1111111111111111",
        token_hash: hashToken("t2"),
        created_at: "2024-06-01T00:00:00.000Z",
      };
      await store.createGrant(second);
      assert.deepEqual(
        (await store.listGrants()).map((g) => g.grant_id),
        [grant.grant_id, second.grant_id],
      );
      assert.equal(await store.revokeGrant(grant.grant_id, "2024-07-01T00:00:00.000Z"), true);
      assert.equal(await store.revokeGrant(grant.grant_id, "2024-08-01T00:00:00.000Z"), true);
      assert.equal((await store.getGrant(grant.grant_id))?.revoked_at, "2024-07-01T00:00:00.000Z");
      assert.equal(
        (await store.getGrantByTokenHash(grant.token_hash))?.revoked_at,
        "2024-07-01T00:00:00.000Z",
      );
      assert.equal(await store.revokeGrant("grt_ffffffffffffffff", "2024-07-01T00:00:00.000Z"), false);
    });

    test("no stored grant holds the raw token", async () => {
      const all = JSON.stringify(await store.listGrants());
      assert.equal(all.includes("pdpp_ct_secret-token"), false);
      assert.ok(all.includes(grant.token_hash));
    });

    test("access log appends and lists newest first, optionally per grant", async () => {
      const base = {
        client_name: "c",
        stream: "messages",
        connection_id: null,
        record_count: 3,
        bytes: 120,
        status: 200,
      };
      await store.appendAccessLog({
        ...base,
        at: "2024-01-01T00:00:00.000Z",
        grant_id: grant.grant_id,
        route: "GET /v1/search",
      });
      await store.appendAccessLog({
        ...base,
        at: "2024-01-02T00:00:00.000Z",
        grant_id: null,
        client_name: null,
        route: "mcp:fetch",
      });
      await store.appendAccessLog({
        ...base,
        at: "2024-01-03T00:00:00.000Z",
        grant_id: grant.grant_id,
        route: "mcp:search",
      });
      const all = await store.listAccessLog({ limit: 10 });
      assert.deepEqual(
        all.map((e) => e.route),
        ["mcp:search", "mcp:fetch", "GET /v1/search"],
      );
      assert.deepEqual(all[1], {
        ...base,
        at: "2024-01-02T00:00:00.000Z",
        grant_id: null,
        client_name: null,
        route: "mcp:fetch",
      });
      assert.deepEqual(
        (await store.listAccessLog({ limit: 10, grantId: grant.grant_id })).map((e) => e.at),
        ["2024-01-03T00:00:00.000Z", "2024-01-01T00:00:00.000Z"],
      );
      assert.equal((await store.listAccessLog({ limit: 1 })).length, 1);
    });
  });
}
