// Resolves a changes_since bookmark's anchor (the last record a client saw) to the version to
// resume after, on Postgres. Versions are store-wide and jump with writes a grant cannot see, so
// bookmarks never carry one (see src/rs/routes/changes.ts); only visible rows are consulted here.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import type { ChangesAnchor } from "../store.js";
import { Params, scopesClause } from "./sql-scope.js";

export async function changesPosition(
  pool: pg.Pool,
  scopes: StreamScope[],
  anchor: ChangesAnchor,
): Promise<number> {
  const params = new Params();
  const where = scopesClause(params, scopes, { withTombstones: true });
  const { rows } = await pool.query<{ version: string; emitted_at: string; deleted: boolean }>(
    `SELECT r.version, r.emitted_at, r.deleted FROM records r
     WHERE (${where}) AND r.connection_id = ${params.add(anchor.connectionId)}
       AND r.record_id = ${params.add(anchor.recordId)}`,
    params.values,
  );
  const row = rows[0];
  if (row && row.emitted_at === anchor.emittedAt && row.deleted === anchor.deleted)
    return Number(row.version);
  // The anchor changed (or left the scope) since: resume after every visible row written before it.
  const before = new Params();
  const { rows: max } = await pool.query<{ v: string | null }>(
    `SELECT max(r.version) AS v FROM records r
     WHERE (${scopesClause(before, scopes, { withTombstones: true })})
       AND r.emitted_at COLLATE "C" < ${before.add(anchor.emittedAt)}`,
    before.values,
  );
  return max[0].v === null ? 0 : Number(max[0].v);
}
