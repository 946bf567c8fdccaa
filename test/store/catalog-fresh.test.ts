// The catalog cache is never stale: a manifest or connection written through a SECOND store handle
// on the same SQLite file / Postgres schema (what another worker process or `pdpp import` is) is
// seen by the very next catalog read of the first handle, on the RS's own path (bearer lookup,
// then catalog with the generation that lookup returned).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Manifest } from "../../src/core/manifest.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";
import { CHAT_MANIFEST, MAIL_MANIFEST } from "../rs/fixture-manifests.js";

const OWNER_HASH = "a".repeat(64);

/** What a read request does: authenticate, then load the catalog under the generation it read. */
async function nextRead(store: Store) {
  const found = await store.lookupBearer(OWNER_HASH, { checkOwner: true });
  assert.equal(found.owner, true);
  const catalog = await store.catalog(found.catalogGeneration);
  return {
    manifests: catalog.manifests.map((m) => `${m.connector_key}:${m.streams.map((s) => s.name).join(",")}`),
    connections: catalog.connections.map((c) => c.display_name).sort(),
  };
}

async function scenario(a: Store, b: Store): Promise<void> {
  await a.putOwnerToken(OWNER_HASH);
  await a.putManifest(MAIL_MANIFEST);
  await a.ensureConnection(MAIL_MANIFEST.connector_key, "first");
  const before = await nextRead(a);
  assert.deepEqual(before.connections, ["first"]);
  assert.deepEqual(await nextRead(a), before, "a repeated read is served the same catalog");

  await b.putManifest(CHAT_MANIFEST);
  assert.equal((await nextRead(a)).manifests.length, 2, "manifest registered by the other handle");

  const second = await b.ensureConnection(MAIL_MANIFEST.connector_key, "second");
  assert.deepEqual((await nextRead(a)).connections, ["first", "second"], "connection added elsewhere");

  const changed: Manifest = structuredClone(CHAT_MANIFEST);
  changed.streams = changed.streams.slice(0, 1);
  await b.putManifest(changed);
  assert.ok((await nextRead(a)).manifests.includes(`${changed.connector_key}:${changed.streams[0].name}`));

  assert.equal(await b.deleteConnection(second.connection_id), true);
  assert.deepEqual((await nextRead(a)).connections, ["first"], "connection removed elsewhere");
  // The OAuth access-token lookup (hosted MCP) carries the generation the same way.
  await b.ensureConnection(MAIL_MANIFEST.connector_key, "oauth-seen");
  const viaOAuth = await a.lookupAccessToken("b".repeat(64));
  assert.equal(viaOAuth.token, null);
  const oauthCatalog = await a.catalog(viaOAuth.catalogGeneration);
  assert.deepEqual(oauthCatalog.connections.map((c) => c.display_name).sort(), ["first", "oauth-seen"]);
  assert.equal(
    await b.deleteConnection(
      (await b.ensureConnection(MAIL_MANIFEST.connector_key, "oauth-seen")).connection_id,
    ),
    true,
  );

  // This handle's own writes are seen too (no other connection committed in between).
  await a.ensureConnection(MAIL_MANIFEST.connector_key, "third");
  assert.deepEqual((await nextRead(a)).connections, ["first", "third"]);
  const catalog = await a.catalog();
  assert.ok(Object.isFrozen(catalog.manifests[0]), "shared catalog objects are frozen");
  // getManifest (its own cache) also sees the other handle's manifest change.
  await b.putManifest(CHAT_MANIFEST);
  assert.equal(
    (await a.getManifest(CHAT_MANIFEST.connector_key))?.streams.length,
    CHAT_MANIFEST.streams.length,
  );
}

test("sqlite: catalog writes through a second handle are seen by the next read", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-catalog-"));
  const a = await openSqliteStore({ path: join(dir, "pdpp.db") });
  const b = await openSqliteStore({ path: join(dir, "pdpp.db") });
  try {
    await scenario(a, b);
  } finally {
    await b.close();
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const url = pgTestUrl();
test("postgres: catalog writes through a second handle are seen by the next read", {
  skip: !url,
}, async () => {
  if (!url) return;
  const schema = newTestSchemaName();
  const a = await openPostgresStore({ url, schema });
  const b = await openPostgresStore({ url, schema });
  try {
    await scenario(a, b);
  } finally {
    await b.close();
    await a.close();
    await dropTestSchema(url, schema);
  }
});
