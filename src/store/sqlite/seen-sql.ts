// SQL for what a scope observes of a record's version and emitted_at (core/stamps.ts), used by the
// changes feed and bookmark resolution. Rows without stamps, and scopes that see every field, use
// the stored columns as they are; only updated rows under a projected scope call the UDFs.
import type { StreamScope } from "../../core/grant.js";
import { observedPaths } from "../../core/stamps.js";
import type { SearchResult } from "../store.js";
import type { SqliteDb } from "./db.js";
import { observedStamp, type RecordRow } from "./materialize.js";
import { normalizeScopes, type SqlParam, type SqlPart, scopeByConnection } from "./scope-sql.js";

/** True when some scope projects fields (then stamps can hide an update from it). */
export function anyProjected(scopes: StreamScope[]): boolean {
  return scopes.some((s) => observedPaths(s) !== null);
}

function seenSql(scopes: StreamScope[], call: (pathsParam: string) => string, plain: string): SqlPart {
  const arms: string[] = [];
  const params: SqlParam[] = [];
  for (const scope of scopes) {
    const paths = observedPaths(scope);
    if (paths === null || scope.connectionIds.length === 0) continue;
    arms.push(
      `WHEN r.stream = ? AND r.connection_id IN (${scope.connectionIds.map(() => "?").join(", ")}) THEN ${call("?")}`,
    );
    params.push(scope.stream.name, ...scope.connectionIds, JSON.stringify(paths));
  }
  if (arms.length === 0) return { sql: plain, params: [] };
  return { sql: `(CASE WHEN r.stamps IS NULL THEN ${plain} ${arms.join(" ")} ELSE ${plain} END)`, params };
}

/** The version each row's scope observes. */
export function seenVersionSql(scopes: StreamScope[]): SqlPart {
  return seenSql(scopes, (p) => `pdpp_seen_version(r.version, r.stamps, r.base_version, ${p})`, "r.version");
}

/** The emitted_at each row's scope observes. */
export function seenEmittedAtSql(scopes: StreamScope[]): SqlPart {
  return seenSql(
    scopes,
    (p) => `pdpp_seen_emitted_at(r.emitted_at, r.stamps, r.base_version, r.base_emitted_at, ${p})`,
    "r.emitted_at",
  );
}

/**
 * Search hits with the emitted_at their scope observes. Search reads the stored column; for a
 * projected scope, hits of updated records are looked up again (one indexed probe each, at most a
 * page) rather than threading stamps through the search queries.
 */
export function observeHits(db: SqliteDb, scopes: StreamScope[], result: SearchResult): SearchResult {
  if (!anyProjected(scopes) || result.hits.length === 0) return result;
  const byConnection = scopeByConnection(normalizeScopes(scopes));
  const probe = db.stmt(
    `SELECT version, emitted_at, stamps, base_version, base_emitted_at FROM records
     WHERE connection_id = ? AND stream = ? AND record_id = ? AND stamps IS NOT NULL`,
  );
  const hits = result.hits.map((hit) => {
    const scope = byConnection.get(`${hit.connectionId}\u0000${hit.stream}`);
    if (!scope || scope.fields === "all") return hit;
    const row = probe.get(hit.connectionId, hit.stream, hit.recordId) as
      | Pick<RecordRow, "version" | "emitted_at" | "stamps" | "base_version" | "base_emitted_at">
      | undefined;
    return row ? { ...hit, emittedAt: observedStamp(row, scope).emittedAt } : hit;
  });
  return { ...result, hits };
}
