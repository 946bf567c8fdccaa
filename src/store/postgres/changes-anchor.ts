// Where a changes_since bookmark of the old format resumes, on Postgres (core/changes-bookmark.ts):
// after the newest version a scope observes on a visible change observed before the old anchor's
// emitted_at, so every visible change observed at or after it comes (at least once). Only visible
// rows are read, by the version and emitted_at their scope observes (core/stamps.ts). Bookmarks
// issued now hold their version and never come here.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { seenEmittedAtSql, seenVersionSql } from "./seen-sql.js";
import { Params, scopesClause } from "./sql-scope.js";

export async function changesPositionBefore(
  pool: pg.Pool,
  scopes: StreamScope[],
  emittedAt: string,
): Promise<number> {
  const params = new Params();
  const version = seenVersionSql(params, scopes);
  const emitted = seenEmittedAtSql(params, scopes);
  const { rows } = await pool.query<{ v: string | null }>(
    `SELECT max(${version}) AS v FROM records r
     WHERE (${scopesClause(params, scopes, { withTombstones: true })})
       AND ${emitted} COLLATE "C" < ${params.add(emittedAt)}`,
    params.values,
  );
  return rows[0].v === null ? 0 : Number(rows[0].v);
}
