// Where a changes_since bookmark of the old format resumes, on SQLite (core/changes-bookmark.ts):
// after the newest version a scope observes on a visible change observed before the old anchor's
// emitted_at, so every visible change observed at or after it comes (at least once). Only visible
// rows are read, by the version and emitted_at their scope observes (core/stamps.ts). Bookmarks
// issued now hold their version and never come here.
import type { StreamScope } from "../../core/grant.js";
import type { SqliteDb } from "./db.js";
import { normalizeScopes, scopesWhere } from "./scope-sql.js";
import { seenEmittedAtSql, seenVersionSql } from "./seen-sql.js";

export function changesPositionBefore(db: SqliteDb, scopes: StreamScope[], emittedAt: string): number {
  const live = normalizeScopes(scopes);
  if (live.length === 0) return 0;
  const where = scopesWhere(live, [], { includeDeleted: true });
  const version = seenVersionSql(live);
  const emitted = seenEmittedAtSql(live);
  const before = db
    .stmt(`SELECT max(${version.sql}) AS v FROM records r WHERE (${where.sql}) AND ${emitted.sql} < ?`)
    .get(...version.params, ...where.params, ...emitted.params, emittedAt) as { v: number | null };
  return before.v ?? 0;
}
