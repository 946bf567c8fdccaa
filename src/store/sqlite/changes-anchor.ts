// Resolves a changes_since bookmark's anchor (the last record a client saw) to the version to
// resume after, on SQLite. Versions are store-wide and jump with writes a grant cannot see, so
// bookmarks never carry one (see src/rs/routes/changes.ts); only visible rows are consulted here,
// by the version and emitted_at their scope observes (an update of hidden fields only moves
// neither; core/stamps.ts).
import type { StreamScope } from "../../core/grant.js";
import type { ChangesAnchor } from "../store.js";
import type { SqliteDb } from "./db.js";
import { observedStamp, RECORD_COLUMNS, type RecordRow } from "./materialize.js";
import { normalizeScopes, scopeByConnection, scopesWhere } from "./scope-sql.js";
import { seenEmittedAtSql, seenVersionSql } from "./seen-sql.js";

export function changesPosition(db: SqliteDb, scopes: StreamScope[], anchor: ChangesAnchor): number {
  const live = normalizeScopes(scopes);
  if (live.length === 0) return 0;
  const where = scopesWhere(live, [], { includeDeleted: true });
  const row = db
    .stmt(
      `SELECT ${RECORD_COLUMNS} FROM records r
       WHERE (${where.sql}) AND r.connection_id = ? AND r.record_id = ?`,
    )
    .get(...where.params, anchor.connectionId, anchor.recordId) as RecordRow | undefined;
  if (row) {
    const scope = scopeByConnection(live).get(`${row.connection_id}\u0000${row.stream}`) as StreamScope;
    const seen = observedStamp(row, scope);
    if (seen.emittedAt === anchor.emittedAt && row.deleted === (anchor.deleted ? 1 : 0)) return seen.version;
  }
  // The anchor changed (or left the scope) since: resume after every visible row written before it.
  const version = seenVersionSql(live);
  const emitted = seenEmittedAtSql(live);
  const before = db
    .stmt(`SELECT max(${version.sql}) AS v FROM records r WHERE (${where.sql}) AND ${emitted.sql} < ?`)
    .get(...version.params, ...where.params, ...emitted.params, anchor.emittedAt) as { v: number | null };
  return before.v ?? 0;
}
