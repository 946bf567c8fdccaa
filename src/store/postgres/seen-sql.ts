// What a scope observes of a record's version and emitted_at on Postgres (core/stamps.ts): in TS
// for rows a read returns, in SQL (pdpp_seen_stamp) for ordering a projected grant's changes feed
// and resolving its bookmarks. Rows without stamps, and scopes that see every field, use the stored
// columns as they are.
import type pg from "pg";
import type { StreamScope } from "../../core/grant.js";
import { observedPaths, parseStamps, visibleStamp } from "../../core/stamps.js";
import type { SearchResult } from "../store.js";
import type { Params } from "./sql-scope.js";

export interface StampFields {
  version: string;
  emitted_at: string;
  stamps: unknown;
  base_version: string | null;
  base_emitted_at: string | null;
}

export function observedStamp(row: StampFields, scope: StreamScope): { version: number; emittedAt: string } {
  if (row.stamps === null || scope.fields === "all")
    return { version: Number(row.version), emittedAt: row.emitted_at };
  return visibleStamp(
    {
      version: Number(row.version),
      emittedAt: row.emitted_at,
      baseVersion: row.base_version === null ? null : Number(row.base_version),
      baseEmittedAt: row.base_emitted_at,
      stamps: parseStamps(row.stamps),
    },
    observedPaths(scope),
  );
}

/** True when some scope projects fields (then stamps can hide an update from it). */
export function anyProjected(scopes: StreamScope[]): boolean {
  return scopes.some((s) => observedPaths(s) !== null && s.connectionIds.length > 0);
}

function seenSql(
  params: Params,
  scopes: StreamScope[],
  seen: (stamp: string) => string,
  plain: string,
): string {
  const arms: string[] = [];
  for (const scope of scopes) {
    const paths = observedPaths(scope);
    if (paths === null || scope.connectionIds.length === 0) continue;
    const stamp = `pdpp_seen_stamp(r.stamps, ${params.add(paths)}::text[])`;
    arms.push(
      `WHEN r.stream = ${params.add(scope.stream.name)} AND r.connection_id = ANY(${params.add(scope.connectionIds)}::text[]) THEN ${seen(stamp)}`,
    );
  }
  if (arms.length === 0) return plain;
  return `(CASE WHEN r.stamps IS NULL THEN ${plain} ${arms.join(" ")} ELSE ${plain} END)`;
}

/** The version each row's scope observes (bigint). */
export function seenVersionSql(params: Params, scopes: StreamScope[]): string {
  return seenSql(params, scopes, (s) => `coalesce((${s} ->> 0)::bigint, r.base_version)`, "r.version");
}

/** The emitted_at each row's scope observes (text). */
export function seenEmittedAtSql(params: Params, scopes: StreamScope[]): string {
  return seenSql(params, scopes, (s) => `coalesce(${s} ->> 1, r.base_emitted_at)`, "r.emitted_at");
}

/**
 * Search hits with the emitted_at their scope observes. Search reads the stored column; for a
 * projected scope, hits of updated records are looked up again (one query for the page) rather
 * than threading stamps through the search queries.
 */
export async function observeHits(
  pool: pg.Pool,
  scopes: StreamScope[],
  result: SearchResult,
): Promise<SearchResult> {
  if (!anyProjected(scopes) || result.hits.length === 0) return result;
  const scopeOf = (hit: { connectionId: string; stream: string }) =>
    scopes.find((s) => s.stream.name === hit.stream && s.connectionIds.includes(hit.connectionId));
  const asked = result.hits.filter((h) => {
    const scope = scopeOf(h);
    return scope !== undefined && scope.fields !== "all";
  });
  if (asked.length === 0) return result;
  const { rows } = await pool.query<
    StampFields & { connection_id: string; stream: string; record_id: string }
  >(
    `SELECT r.connection_id, r.stream, r.record_id, r.version, r.emitted_at, r.stamps, r.base_version,
            r.base_emitted_at
     FROM records r JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(connection_id, stream, record_id)
       ON r.connection_id = k.connection_id AND r.stream = k.stream AND r.record_id = k.record_id
     WHERE r.stamps IS NOT NULL`,
    [asked.map((h) => h.connectionId), asked.map((h) => h.stream), asked.map((h) => h.recordId)],
  );
  if (rows.length === 0) return result;
  const found = new Map(rows.map((r) => [`${r.connection_id}\u0000${r.stream}\u0000${r.record_id}`, r]));
  const hits = result.hits.map((hit) => {
    const row = found.get(`${hit.connectionId}\u0000${hit.stream}\u0000${hit.recordId}`);
    const scope = scopeOf(hit);
    return row && scope ? { ...hit, emittedAt: observedStamp(row, scope).emittedAt } : hit;
  });
  return { ...result, hits };
}
