// Owner-side bookkeeping on Postgres: secrets, manifests, connections, tokens, grants, access log.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { PdppError } from "../../core/errors.js";
import { connectionIdFor } from "../../core/ids.js";
import type { Manifest } from "../../core/manifest.js";
import type {
  AccessLogDay,
  AccessLogEntry,
  AccessTokenLookup,
  BearerLookup,
  Connection,
  OAuthTokenRecord,
  StoredGrant,
} from "../store.js";
import { inTransaction } from "./pool.js";
import { reindexChangedStreams } from "./search-write.js";

export async function secret(pool: pg.Pool, name: string): Promise<string> {
  // Insert-if-absent then read: concurrent first uses agree on one value.
  await pool.query("INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    randomBytes(32).toString("base64url"),
  ]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM secrets WHERE name = $1", [name]);
  return rows[0].value;
}

/**
 * Store a manifest; streams whose search fields changed are re-indexed in the same transaction
 * (under the ingest lock), so no read sees the new manifest over rows indexed under the old list.
 */
export async function putManifest(pool: pg.Pool, manifest: Manifest): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('pdpp_ingest:' || current_schema()))");
    const { rows } = await client.query<{ body: string }>(
      "SELECT body FROM manifests WHERE connector_key = $1 FOR UPDATE",
      [manifest.connector_key],
    );
    await client.query(
      `INSERT INTO manifests (connector_key, body) VALUES ($1, $2)
       ON CONFLICT (connector_key) DO UPDATE SET body = EXCLUDED.body`,
      [manifest.connector_key, JSON.stringify(manifest)],
    );
    const previous = rows[0] ? (JSON.parse(rows[0].body) as Manifest) : null;
    await reindexChangedStreams(client, { previous, next: manifest });
  });
}

export async function getManifest(pool: pg.Pool, connectorKey: string): Promise<Manifest | null> {
  const { rows } = await pool.query<{ body: string }>("SELECT body FROM manifests WHERE connector_key = $1", [
    connectorKey,
  ]);
  return rows[0] ? (JSON.parse(rows[0].body) as Manifest) : null;
}

export async function listManifests(pool: pg.Pool): Promise<Manifest[]> {
  const { rows } = await pool.query<{ body: string }>("SELECT body FROM manifests ORDER BY connector_key");
  return rows.map((r) => JSON.parse(r.body) as Manifest);
}

const CONNECTION_COLUMNS = "connection_id, connector_key, display_name, created_at";

export async function ensureConnection(
  pool: pg.Pool,
  connectorKey: string,
  displayName: string,
): Promise<Connection> {
  const connectionId = connectionIdFor(connectorKey, displayName);
  await pool.query(
    `INSERT INTO connections (${CONNECTION_COLUMNS}) VALUES ($1, $2, $3, $4)
     ON CONFLICT (connection_id) DO NOTHING`,
    [connectionId, connectorKey, displayName, new Date().toISOString()],
  );
  const found = await getConnection(pool, connectionId);
  if (!found) throw new Error(`connection ${connectionId} vanished right after insert`);
  return found;
}

export async function getConnection(pool: pg.Pool, connectionId: string): Promise<Connection | null> {
  const { rows } = await pool.query<Connection>(
    `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE connection_id = $1`,
    [connectionId],
  );
  return rows[0] ?? null;
}

export async function listConnections(pool: pg.Pool): Promise<Connection[]> {
  const { rows } = await pool.query<Connection>(
    `SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY connection_id`,
  );
  return rows;
}

export async function deleteConnection(pool: pg.Pool, connectionId: string): Promise<boolean> {
  // ON DELETE CASCADE removes records, their chunks and their search rows in the same statement.
  const result = await pool.query("DELETE FROM connections WHERE connection_id = $1", [connectionId]);
  return (result.rowCount ?? 0) > 0;
}

export async function putOwnerToken(pool: pg.Pool, tokenHash: string): Promise<void> {
  await pool.query("INSERT INTO owner_tokens (token_hash) VALUES ($1) ON CONFLICT DO NOTHING", [tokenHash]);
}

export async function isOwnerToken(pool: pg.Pool, tokenHash: string): Promise<boolean> {
  const { rowCount } = await pool.query("SELECT 1 FROM owner_tokens WHERE token_hash = $1", [tokenHash]);
  return (rowCount ?? 0) > 0;
}

interface GrantRow {
  body: string;
  token_hash: string;
  revoked_at: string | null;
}

function grantFromRow(row: GrantRow): StoredGrant {
  // revoked_at lives in its own column so revocation is one UPDATE; it overrides the body.
  return { ...(JSON.parse(row.body) as StoredGrant), token_hash: row.token_hash, revoked_at: row.revoked_at };
}

export async function createGrant(pool: pg.Pool, grant: StoredGrant): Promise<void> {
  const { token_hash, ...body } = grant;
  try {
    await pool.query(
      "INSERT INTO grants (grant_id, token_hash, body, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)",
      [grant.grant_id, token_hash, JSON.stringify(body), grant.created_at, grant.revoked_at],
    );
  } catch (error) {
    if ((error as { code?: string }).code === "23505") {
      throw new PdppError("invalid_request", "that grant id or token already exists.");
    }
    throw error;
  }
}

async function grantWhere(pool: pg.Pool, where: string, value: string): Promise<StoredGrant | null> {
  const { rows } = await pool.query<GrantRow>(
    `SELECT body, token_hash, revoked_at FROM grants WHERE ${where}`,
    [value],
  );
  return rows[0] ? grantFromRow(rows[0]) : null;
}

/**
 * Owner check (when asked) and grant lookup for a bearer hash in ONE statement, together with the
 * catalog generation, so a read can use its cached catalog without another round trip.
 */
export async function lookupBearer(
  pool: pg.Pool,
  tokenHash: string,
  options: { checkOwner: boolean },
): Promise<BearerLookup> {
  const { rows } = await pool.query<GrantRow & { owner: boolean; gen: string }>({
    // Named: every request runs it, so each connection parses and plans it once (pg prepares a
    // named statement per connection on first use).
    name: "pdpp_lookup_bearer",
    text: `SELECT (SELECT gen FROM catalog_generation)::text AS gen,
            ($2::boolean AND EXISTS (SELECT 1 FROM owner_tokens WHERE token_hash = $1)) AS owner,
            g.body, g.token_hash, g.revoked_at
     FROM (SELECT 1) one LEFT JOIN grants g ON g.token_hash = $1`,
    values: [tokenHash, options.checkOwner],
  });
  const row = rows[0];
  return {
    owner: row.owner,
    grant: !row.owner && row.body !== null ? grantFromRow(row) : null,
    catalogGeneration: row.gen,
  };
}

/**
 * An OAuth token, the grant it names and the catalog generation, in ONE statement (the hosted MCP
 * path's bearer lookup; the caller checks kind, expiry, audience and the grant as before).
 */
export async function lookupAccessToken(pool: pg.Pool, tokenHash: string): Promise<AccessTokenLookup> {
  const { rows } = await pool.query<{
    gen: string;
    token_body: string | null;
    used_at: string | null;
    body: string | null;
    token_hash: string;
    revoked_at: string | null;
  }>({
    name: "pdpp_lookup_access_token", // per request on the hosted MCP path: prepared once per connection
    text: `SELECT (SELECT gen FROM catalog_generation)::text AS gen, o.body AS token_body, o.used_at,
            g.body, g.token_hash, g.revoked_at
     FROM (SELECT 1) one
     LEFT JOIN oauth_tokens o ON o.token_hash = $1
     LEFT JOIN grants g ON g.grant_id = (o.body::jsonb ->> 'grant_id')`,
    values: [tokenHash],
  });
  const row = rows[0];
  const token =
    row.token_body === null
      ? null
      : { ...(JSON.parse(row.token_body) as Omit<OAuthTokenRecord, "used_at">), used_at: row.used_at };
  const grant =
    row.body === null
      ? null
      : grantFromRow({ body: row.body, token_hash: row.token_hash, revoked_at: row.revoked_at });
  return { token, grant, catalogGeneration: row.gen };
}

export async function catalogGeneration(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ gen: string }>({
    name: "pdpp_catalog_generation",
    text: "SELECT gen::text AS gen FROM catalog_generation",
  });
  return rows[0].gen;
}

export function getGrantByTokenHash(pool: pg.Pool, tokenHash: string): Promise<StoredGrant | null> {
  return grantWhere(pool, "token_hash = $1", tokenHash);
}

export function getGrant(pool: pg.Pool, grantId: string): Promise<StoredGrant | null> {
  return grantWhere(pool, "grant_id = $1", grantId);
}

export async function listGrants(pool: pg.Pool): Promise<StoredGrant[]> {
  const { rows } = await pool.query<GrantRow>(
    "SELECT body, token_hash, revoked_at FROM grants ORDER BY created_at, grant_id",
  );
  return rows.map(grantFromRow);
}

export async function revokeGrant(pool: pg.Pool, grantId: string, at: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    "UPDATE grants SET revoked_at = COALESCE(revoked_at, $2) WHERE grant_id = $1",
    [grantId, at],
  );
  return (rowCount ?? 0) > 0;
}

/** One statement for a batch of rows (the store buffers them off the request path). */
export async function appendAccessLog(pool: pg.Pool, entries: AccessLogEntry[]): Promise<void> {
  const columns = [
    "at",
    "grant_id",
    "client_name",
    "route",
    "stream",
    "connection_id",
    "record_count",
    "bytes",
    "status",
  ] as const;
  await pool.query(
    `INSERT INTO access_log (${columns.join(", ")})
     SELECT ${columns.join(", ")} FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                          $7::int[], $8::bigint[], $9::int[])
     WITH ORDINALITY AS t(${columns.join(", ")}, n) ORDER BY n`,
    columns.map((c) => entries.map((e) => e[c])),
  );
}

export async function accessLogDaily(pool: pg.Pool, since: string): Promise<AccessLogDay[]> {
  const { rows } = await pool.query<AccessLogDay>(
    `SELECT grant_id, substr(at, 1, 10) AS day, count(*)::int AS reads FROM access_log
     WHERE at >= $1 GROUP BY grant_id, day ORDER BY day`,
    [since],
  );
  return rows;
}

export async function listAccessLog(
  pool: pg.Pool,
  options: { limit: number; grantId?: string },
): Promise<AccessLogEntry[]> {
  const params: unknown[] = [options.limit];
  const where = options.grantId ? "WHERE grant_id = $2" : "";
  if (options.grantId) params.push(options.grantId);
  // Newest first: the owner asks "who read what lately".
  const { rows } = await pool.query<AccessLogEntry & { bytes: string }>(
    `SELECT at, grant_id, client_name, route, stream, connection_id, record_count, bytes, status
     FROM access_log ${where} ORDER BY id DESC LIMIT $1`,
    params,
  );
  return rows.map((r) => ({ ...r, bytes: Number(r.bytes) }));
}
