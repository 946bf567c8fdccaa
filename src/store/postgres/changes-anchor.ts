// Resolves a changes_since bookmark's anchor (the last record a client saw) to the version to
// resume after, on Postgres. Versions are store-wide and jump with writes a grant cannot see, so
// bookmarks never carry one (see src/rs/routes/changes.ts); only visible rows are consulted here,
// by the version and emitted_at their scope observes (an update of hidden fields only moves
// neither; core/stamps.ts).
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { ChangesAnchor } from "../store.js";
import { scopeFinder } from "./reads.js";
import { observedStamp, type StampFields, seenEmittedAtSql, seenVersionSql } from "./seen-sql.js";
import { Params, scopesClause } from "./sql-scope.js";

export async function changesPosition(
  pool: pg.Pool,
  scopes: StreamScope[],
  anchor: ChangesAnchor,
): Promise<number> {
  const params = new Params();
  const where = scopesClause(params, scopes, { withTombstones: true });
  const { rows } = await pool.query<
    StampFields & { deleted: boolean; stream: string; connection_id: string }
  >(
    `SELECT r.stream, r.connection_id, r.version, r.emitted_at, r.deleted, r.stamps, r.base_version,
            r.base_emitted_at
     FROM records r
     WHERE (${where}) AND r.connection_id = ${params.add(anchor.connectionId)}
       AND r.record_id = ${params.add(anchor.recordId)}`,
    params.values,
  );
  const row = rows[0];
  if (row && row.deleted === anchor.deleted) {
    const seen = observedStamp(row, scopeFinder(scopes)(row));
    if (seen.emittedAt === anchor.emittedAt) return seen.version;
  }
  // The anchor changed (or left the scope) since: resume after every visible row written before it.
  const before = new Params();
  const version = seenVersionSql(before, scopes);
  const emitted = seenEmittedAtSql(before, scopes);
  const { rows: max } = await pool.query<{ v: string | null }>(
    `SELECT max(${version}) AS v FROM records r
     WHERE (${scopesClause(before, scopes, { withTombstones: true })})
       AND ${emitted} COLLATE "C" < ${before.add(anchor.emittedAt)}`,
    before.values,
  );
  return max[0].v === null ? 0 : Number(max[0].v);
}
