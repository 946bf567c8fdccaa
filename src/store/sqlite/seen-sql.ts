// SQL for what a scope observes of a record's version and emitted_at (core/stamps.ts), used by the
// changes feed and bookmark resolution (search hits take theirs from the row describeHit reads).
// Rows without stamps, and scopes that see every field, use the stored columns as they are; only
// updated rows under a projected scope call the UDFs.
import type { StreamScope } from "../../core/grant.js";
import { observedPaths } from "../../core/stamps.js";
import type { SqlParam, SqlPart } from "./scope-sql.js";

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
