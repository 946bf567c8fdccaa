// Owner web sign-in on Postgres: the passphrase hash, sessions and one-time sign-in links (see
// src/web); secrets are kept only as hashes.
import type pg from "pg";
import type { OwnerSecretKind, OwnerSecretRecord } from "../store.js";
import { inTransaction } from "./pool.js";

/** The tables, created by migration 5 (src/store/postgres/migrations.ts). */
export const OWNER_WEB_TABLES_SQL = `
CREATE TABLE owner_passphrase (
  id integer PRIMARY KEY CHECK (id = 1),
  hash text NOT NULL,
  updated_at text NOT NULL
);
CREATE TABLE owner_secrets (
  id_hash text PRIMARY KEY,
  kind text NOT NULL,
  created_at text NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
`;

const COLUMNS = "id_hash, kind, created_at, expires_at";

export async function getPassphraseHash(pool: pg.Pool): Promise<string | null> {
  const { rows } = await pool.query<{ hash: string }>("SELECT hash FROM owner_passphrase WHERE id = 1");
  return rows[0]?.hash ?? null;
}

export async function setPassphraseHash(pool: pg.Pool, hash: string, at: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO owner_passphrase (id, hash, updated_at) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET hash = EXCLUDED.hash, updated_at = EXCLUDED.updated_at`,
      [hash, at],
    );
    // A new passphrase signs every browser out: a stolen session does not outlive the change.
    await client.query("DELETE FROM owner_secrets WHERE kind = 'session'");
  });
}

export async function putSecret(pool: pg.Pool, secret: OwnerSecretRecord): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("DELETE FROM owner_secrets WHERE expires_at < $1", [secret.created_at]);
    await client.query(`INSERT INTO owner_secrets (${COLUMNS}) VALUES ($1, $2, $3, $4)`, [
      secret.id_hash,
      secret.kind,
      secret.created_at,
      secret.expires_at,
    ]);
  });
}

export async function getSecret(
  pool: pg.Pool,
  idHash: string,
  kind: OwnerSecretKind,
): Promise<OwnerSecretRecord | null> {
  const { rows } = await pool.query<OwnerSecretRecord>(
    `SELECT ${COLUMNS} FROM owner_secrets WHERE id_hash = $1 AND kind = $2`,
    [idHash, kind],
  );
  return rows[0] ?? null;
}

export async function takeSecret(
  pool: pg.Pool,
  idHash: string,
  kind: OwnerSecretKind,
): Promise<OwnerSecretRecord | null> {
  const { rows } = await pool.query<OwnerSecretRecord>(
    `DELETE FROM owner_secrets WHERE id_hash = $1 AND kind = $2 RETURNING ${COLUMNS}`,
    [idHash, kind],
  );
  return rows[0] ?? null;
}
