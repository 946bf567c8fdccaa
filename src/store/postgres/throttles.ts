// Throttle state on Postgres (sign-in backoff, OAuth rate windows): one row per key, read and
// rewritten under a transaction-scoped advisory lock on the key, so every worker and every
// instance on this database shares it exactly.
import type pg from "pg";
import type { ThrottleState } from "../../core/rate-limit.js";
import { inTransaction } from "./pool.js";

/** The table (and the access log's time index), created by migration 13 (src/store/postgres/migrations.ts). */
export const THROTTLES_TABLE_SQL = `
CREATE TABLE throttles (
  key text COLLATE "C" PRIMARY KEY,
  count integer NOT NULL,
  since bigint NOT NULL,
  locked_until bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX throttles_expiry ON throttles (expires_at);
-- The console's reads-per-day charts read the last 30 days of the access log.
CREATE INDEX access_log_at ON access_log (at);
`;

interface Row {
  count: number;
  since: string;
  locked_until: string;
  expires_at: string;
}

const SELECT =
  "SELECT count, since, locked_until, expires_at FROM throttles WHERE key = $1 AND expires_at > $2";

function toState(row: Row | undefined): ThrottleState | null {
  return row
    ? {
        count: row.count,
        since: Number(row.since),
        lockedUntil: Number(row.locked_until),
        expiresAt: Number(row.expires_at),
      }
    : null;
}

export async function getThrottle(pool: pg.Pool, key: string, now: number): Promise<ThrottleState | null> {
  return toState((await pool.query<Row>(SELECT, [key, now])).rows[0]);
}

export function updateThrottle(
  pool: pg.Pool,
  key: string,
  options: { now: number; update: (current: ThrottleState | null) => ThrottleState | null },
): Promise<ThrottleState | null> {
  return inTransaction(pool, async (client) => {
    // A missing row cannot be locked with FOR UPDATE: lock the key's name instead.
    await client.query(
      "SELECT pg_advisory_xact_lock(hashtextextended('pdpp-throttle:' || current_schema() || ':' || $1, 0))",
      [key],
    );
    await client.query("DELETE FROM throttles WHERE expires_at <= $1", [options.now]);
    const next = options.update(toState((await client.query<Row>(SELECT, [key, options.now])).rows[0]));
    if (next === null) await client.query("DELETE FROM throttles WHERE key = $1", [key]);
    else
      await client.query(
        `INSERT INTO throttles (key, count, since, locked_until, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET count = EXCLUDED.count, since = EXCLUDED.since,
           locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at`,
        [key, next.count, next.since, next.lockedUntil, next.expiresAt],
      );
    return next;
  });
}
