// OAuth tables on Postgres: registered clients, pending authorizations, and codes/tokens kept only
// as SHA-256 hashes (see src/oauth). Same semantics as src/store/sqlite/oauth.ts.
import type pg from "pg";
import type { OAuthClientRecord, OAuthPendingRecord, OAuthTokenRecord } from "../store.js";

/** The tables, created by migration 4 (src/store/postgres/migrations.ts). */
export const OAUTH_TABLES_SQL = `
CREATE TABLE oauth_clients (
  client_id text COLLATE "C" PRIMARY KEY,
  body text NOT NULL,
  created_at text NOT NULL
);
CREATE TABLE oauth_pending (
  pending_id text COLLATE "C" PRIMARY KEY,
  body text NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
CREATE TABLE oauth_tokens (
  token_hash text COLLATE "C" PRIMARY KEY,
  kind text NOT NULL,
  grant_id text COLLATE "C" NOT NULL,
  body text NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
`;

export async function putOAuthClient(pool: pg.Pool, client: OAuthClientRecord): Promise<void> {
  await pool.query("INSERT INTO oauth_clients (client_id, body, created_at) VALUES ($1, $2, $3)", [
    client.client_id,
    JSON.stringify(client),
    client.created_at,
  ]);
}

export async function getOAuthClient(pool: pg.Pool, clientId: string): Promise<OAuthClientRecord | null> {
  const { rows } = await pool.query<{ body: string }>("SELECT body FROM oauth_clients WHERE client_id = $1", [
    clientId,
  ]);
  return rows[0] ? (JSON.parse(rows[0].body) as OAuthClientRecord) : null;
}

export async function putOAuthPending(pool: pg.Pool, pending: OAuthPendingRecord): Promise<void> {
  // One statement: expired pending rows go as the new one comes in.
  await pool.query(
    `WITH gone AS (DELETE FROM oauth_pending WHERE expires_at < $4)
     INSERT INTO oauth_pending (pending_id, body, expires_at) VALUES ($1, $2, $3)`,
    [pending.pending_id, JSON.stringify(pending), pending.expires_at, pending.created_at],
  );
}

export async function getOAuthPending(pool: pg.Pool, pendingId: string): Promise<OAuthPendingRecord | null> {
  const { rows } = await pool.query<{ body: string }>(
    "SELECT body FROM oauth_pending WHERE pending_id = $1",
    [pendingId],
  );
  return rows[0] ? (JSON.parse(rows[0].body) as OAuthPendingRecord) : null;
}

export async function takeOAuthPending(pool: pg.Pool, pendingId: string): Promise<OAuthPendingRecord | null> {
  const { rows } = await pool.query<{ body: string }>(
    "DELETE FROM oauth_pending WHERE pending_id = $1 RETURNING body",
    [pendingId],
  );
  return rows[0] ? (JSON.parse(rows[0].body) as OAuthPendingRecord) : null;
}

export async function putOAuthToken(pool: pg.Pool, token: OAuthTokenRecord): Promise<void> {
  const { used_at, ...rest } = token;
  await pool.query(
    "INSERT INTO oauth_tokens (token_hash, kind, grant_id, body, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6)",
    [token.token_hash, token.kind, token.grant_id, JSON.stringify(rest), token.expires_at, used_at],
  );
}

export async function getOAuthToken(pool: pg.Pool, tokenHash: string): Promise<OAuthTokenRecord | null> {
  const { rows } = await pool.query<{ body: string; used_at: string | null }>(
    "SELECT body, used_at FROM oauth_tokens WHERE token_hash = $1",
    [tokenHash],
  );
  if (!rows[0]) return null;
  return { ...(JSON.parse(rows[0].body) as Omit<OAuthTokenRecord, "used_at">), used_at: rows[0].used_at };
}

export async function markOAuthTokenUsed(pool: pg.Pool, tokenHash: string, at: string): Promise<boolean> {
  const result = await pool.query(
    "UPDATE oauth_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL",
    [at, tokenHash],
  );
  return result.rowCount === 1;
}
