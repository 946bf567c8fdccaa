// Resolves a changes_since bookmark's anchor (the last record a client saw) to the version to
// resume after, on SQLite. Versions are store-wide and jump with writes a grant cannot see, so
// bookmarks never carry one (see src/rs/routes/changes.ts); only visible rows are consulted here.
import type { StreamScope } from "../../core/grant.js";
import type { ChangesAnchor } from "../store.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, scopesWhere } from "./scope-sql.js";

export function changesPosition(db: SqliteDb, scopes: StreamScope[], anchor: ChangesAnchor): number {
  const live = normalizeScopes(scopes);
  if (live.length === 0) return 0;
  const where = scopesWhere(live, [], { includeDeleted: true });
  const row = db
    .stmt(
      `SELECT r.version AS version, r.emitted_at AS emitted_at, r.deleted AS deleted FROM records r
       WHERE (${where.sql}) AND r.connection_id = ? AND r.record_id = ?`,
    )
    .get(...where.params, anchor.connectionId, anchor.recordId) as
    | { version: number; emitted_at: string; deleted: number }
    | undefined;
  if (row && row.emitted_at === anchor.emittedAt && row.deleted === (anchor.deleted ? 1 : 0))
    return row.version;
  // The anchor changed (or left the scope) since: resume after every visible row written before it.
  const before = db
    .stmt(`SELECT max(r.version) AS v FROM records r WHERE (${where.sql}) AND r.emitted_at < ?`)
    .get(...where.params, anchor.emittedAt) as { v: number | null };
  return before.v ?? 0;
}
