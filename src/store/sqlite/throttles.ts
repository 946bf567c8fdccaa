// Throttle state of the SQLite store (sign-in backoff, OAuth rate windows): one row per key, read
// and rewritten in one IMMEDIATE transaction, so every process on this file shares it exactly.
import type { ThrottleState } from "../../core/rate-limit.js";
import type { SqliteDb } from "./db.js";

/** The table (and the access log's time index), created by migration 10 (src/store/sqlite/migrations.ts). */
export const THROTTLES_TABLE_SQL = `
  CREATE TABLE throttles (
    key TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    since INTEGER NOT NULL,
    locked_until INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX throttles_expiry ON throttles (expires_at);
  -- The console's reads-per-day charts read the last 30 days of the access log.
  CREATE INDEX access_log_at ON access_log (at);
`;

interface Row {
  count: number;
  since: number;
  locked_until: number;
  expires_at: number;
}

export function getThrottle(db: SqliteDb, key: string, now: number): ThrottleState | null {
  const row = db
    .stmt("SELECT count, since, locked_until, expires_at FROM throttles WHERE key = ? AND expires_at > ?")
    .get(key, now) as Row | undefined;
  return row
    ? { count: row.count, since: row.since, lockedUntil: row.locked_until, expiresAt: row.expires_at }
    : null;
}

export function updateThrottle(
  db: SqliteDb,
  key: string,
  options: { now: number; update: (current: ThrottleState | null) => ThrottleState | null },
): ThrottleState | null {
  return db.raw
    .transaction(() => {
      // Expired keys go first (indexed), so a flood of one-off addresses never piles up.
      db.stmt("DELETE FROM throttles WHERE expires_at <= ?").run(options.now);
      const next = options.update(getThrottle(db, key, options.now));
      if (next === null) db.stmt("DELETE FROM throttles WHERE key = ?").run(key);
      else
        db.stmt(
          `INSERT INTO throttles (key, count, since, locked_until, expires_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET count = excluded.count, since = excluded.since,
             locked_until = excluded.locked_until, expires_at = excluded.expires_at`,
        ).run(key, next.count, next.since, next.lockedUntil, next.expiresAt);
      return next;
    })
    .immediate();
}
