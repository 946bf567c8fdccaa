// OAuth tables of the SQLite store: registered clients, pending authorizations, and codes/tokens
// kept only as SHA-256 hashes (see src/oauth).
import type { OAuthClientRecord, OAuthPendingRecord, OAuthTokenRecord } from "../store.js";
import type { SqliteDb } from "./db.js";

/** The tables, created by migration 3 (src/store/sqlite/migrations.ts). */
export const OAUTH_TABLES_SQL = `
  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    client_json TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE oauth_pending (
    pending_id TEXT PRIMARY KEY,
    pending_json TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE TABLE oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    grant_id TEXT NOT NULL,
    token_json TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
`;

interface TokenRow {
  token_json: string;
  used_at: string | null;
}

export class SqliteOAuth {
  constructor(private readonly db: SqliteDb) {}

  putClient(client: OAuthClientRecord): void {
    this.db
      .stmt("INSERT INTO oauth_clients (client_id, client_json, created_at) VALUES (?, ?, ?)")
      .run(client.client_id, JSON.stringify(client), client.created_at);
  }

  getClient(clientId: string): OAuthClientRecord | null {
    const row = this.db.stmt("SELECT client_json FROM oauth_clients WHERE client_id = ?").get(clientId) as
      | { client_json: string }
      | undefined;
    return row ? (JSON.parse(row.client_json) as OAuthClientRecord) : null;
  }

  putPending(pending: OAuthPendingRecord): void {
    this.db.raw
      .transaction(() => {
        this.db.stmt("DELETE FROM oauth_pending WHERE expires_at < ?").run(pending.created_at);
        this.db
          .stmt("INSERT INTO oauth_pending (pending_id, pending_json, expires_at) VALUES (?, ?, ?)")
          .run(pending.pending_id, JSON.stringify(pending), pending.expires_at);
      })
      .immediate();
  }

  getPending(pendingId: string): OAuthPendingRecord | null {
    const row = this.db.stmt("SELECT pending_json FROM oauth_pending WHERE pending_id = ?").get(pendingId) as
      | { pending_json: string }
      | undefined;
    return row ? (JSON.parse(row.pending_json) as OAuthPendingRecord) : null;
  }

  takePending(pendingId: string): OAuthPendingRecord | null {
    const row = this.db
      .stmt("DELETE FROM oauth_pending WHERE pending_id = ? RETURNING pending_json")
      .get(pendingId) as { pending_json: string } | undefined;
    return row ? (JSON.parse(row.pending_json) as OAuthPendingRecord) : null;
  }

  putToken(token: OAuthTokenRecord): void {
    const { used_at, ...rest } = token;
    this.db
      .stmt(
        "INSERT INTO oauth_tokens (token_hash, kind, grant_id, token_json, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(token.token_hash, token.kind, token.grant_id, JSON.stringify(rest), token.expires_at, used_at);
  }

  getToken(tokenHash: string): OAuthTokenRecord | null {
    const row = this.db
      .stmt("SELECT token_json, used_at FROM oauth_tokens WHERE token_hash = ?")
      .get(tokenHash) as TokenRow | undefined;
    return row
      ? { ...(JSON.parse(row.token_json) as Omit<OAuthTokenRecord, "used_at">), used_at: row.used_at }
      : null;
  }

  markTokenUsed(tokenHash: string, at: string): boolean {
    const sql = "UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL";
    return this.db.stmt(sql).run(at, tokenHash).changes === 1;
  }
}
