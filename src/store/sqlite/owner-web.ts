// Owner web sign-in tables of the SQLite store: the passphrase hash, sessions and one-time sign-in
// links (see src/web); secrets are kept only as hashes.
import type { OwnerSecretKind, OwnerSecretRecord } from "../store.js";
import type { SqliteDb } from "./db.js";

/** The tables, created by migration 5 (src/store/sqlite/migrations.ts). */
export const OWNER_WEB_TABLES_SQL = `
  CREATE TABLE owner_passphrase (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    hash TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE owner_secrets (
    id_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
`;

export class SqliteOwnerWeb {
  constructor(private readonly db: SqliteDb) {}

  getPassphraseHash(): string | null {
    const row = this.db.stmt("SELECT hash FROM owner_passphrase WHERE id = 1").get() as
      | { hash: string }
      | undefined;
    return row?.hash ?? null;
  }

  setPassphraseHash(hash: string, at: string): void {
    this.db.raw
      .transaction(() => {
        this.db
          .stmt(
            `INSERT INTO owner_passphrase (id, hash, updated_at) VALUES (1, ?, ?)
             ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
          )
          .run(hash, at);
        // A new passphrase signs every browser out: a stolen session does not outlive the change.
        this.db.stmt("DELETE FROM owner_secrets WHERE kind = 'session'").run();
      })
      .immediate();
  }

  putSecret(secret: OwnerSecretRecord): void {
    this.db.raw
      .transaction(() => {
        this.db.stmt("DELETE FROM owner_secrets WHERE expires_at < ?").run(secret.created_at);
        this.db
          .stmt("INSERT INTO owner_secrets (id_hash, kind, created_at, expires_at) VALUES (?, ?, ?, ?)")
          .run(secret.id_hash, secret.kind, secret.created_at, secret.expires_at);
      })
      .immediate();
  }

  getSecret(idHash: string, kind: OwnerSecretKind): OwnerSecretRecord | null {
    const row = this.db
      .stmt("SELECT id_hash, kind, created_at, expires_at FROM owner_secrets WHERE id_hash = ? AND kind = ?")
      .get(idHash, kind) as OwnerSecretRecord | undefined;
    return row ?? null;
  }

  takeSecret(idHash: string, kind: OwnerSecretKind): OwnerSecretRecord | null {
    const row = this.db
      .stmt(
        "DELETE FROM owner_secrets WHERE id_hash = ? AND kind = ? RETURNING id_hash, kind, created_at, expires_at",
      )
      .get(idHash, kind) as OwnerSecretRecord | undefined;
    return row ?? null;
  }
}
