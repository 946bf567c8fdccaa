// Orders a scope's search candidates in the contract's order — score desc, time desc with nulls
// last, connection, stream, record id — and returns the best k, reading as little as it can:
// - rankCandidates: any candidate set (a SELECT of `id, score`); a top-k sort on (score, time)
//   with times from the covering index records_search_key, record keys only for the chosen rows.
// - newestOfLevel: candidates that all share one score (a score level of the window). The k newest
//   by rowid give a time T that the page cannot fall below, so only rows of the stream's time index
//   at or after T are looked at: on data whose time follows insertion order that is ~k rows, not
//   the window's 10,000. A guard on that count falls back to rankCandidates when it does not.

import type { SqliteDb } from "./db.js";
import type { SqlPart } from "./scope-sql.js";
import type { Candidate } from "./search-hits.js";

export type CandidateRow = Omit<Candidate, "scope" | "table" | "columns"> & { deleted: number };

interface Ranked {
  id: number;
  score: number;
  time: string | null;
}

/** True when `a` comes before `b` in (score desc, time desc with nulls last) order. */
function rankedBefore(a: Ranked, b: Ranked): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.time === b.time) return false;
  if (a.time === null) return false;
  return b.time === null || a.time > b.time;
}

/** The chosen rows with their record keys (one statement), in the given order. */
function withKeys(db: SqliteDb, chosen: Ranked[]): CandidateRow[] {
  if (chosen.length === 0) return [];
  const keys = db
    .stmt(
      `SELECT r.id, r.connection_id, r.connector_key, r.stream, r.record_id, r.deleted
       FROM records r WHERE r.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(chosen.map((r) => r.id))) as Omit<CandidateRow, "score" | "time">[];
  const byId = new Map(keys.map((r) => [r.id, r]));
  return chosen.flatMap((r) => {
    const key = byId.get(r.id);
    return key ? [{ ...key, score: r.score, time: r.time }] : [];
  });
}

/**
 * The best `k` of the candidate rows (a SELECT of `id, score`) in the full order. A top-k sort on
 * (score, time) reads times from the covering index; only when the row after the k-th ties with it
 * on both are the tied rows ordered by their record keys.
 */
export function rankCandidates(
  db: SqliteDb,
  cand: SqlPart,
  opts: { grantsTime: boolean; k: number },
): CandidateRow[] {
  const { k } = opts;
  const time = opts.grantsTime ? "t.time" : "NULL";
  const join = opts.grantsTime ? "JOIN records AS t INDEXED BY records_search_key ON t.id = c.id" : "";
  const top = db
    .stmt(
      `WITH c AS MATERIALIZED (${cand.sql})
       SELECT c.id, c.score, ${time} AS time FROM c ${join} ORDER BY c.score DESC, ${time} DESC LIMIT ?`,
    )
    .all(...cand.params, k + 1) as Ranked[];
  let chosen = top.slice(0, k);
  const edge = top[k - 1];
  if (top.length > k && !rankedBefore(edge, top[k])) {
    // The k-th row ties with the next on (score, time): the tie group is ordered by record keys.
    const better = chosen.filter((r) => rankedBefore(r, edge));
    const ties = db
      .stmt(
        `WITH c AS MATERIALIZED (${cand.sql})
         SELECT c.id, c.score, ${time} AS time FROM c ${join} JOIN records r ON r.id = c.id
         WHERE c.score = ? AND ${time} IS ? ORDER BY r.connection_id, r.stream, r.record_id LIMIT ?`,
      )
      .all(...cand.params, edge.score, edge.time, k - better.length) as Ranked[];
    chosen = [...better, ...ties];
  }
  return withKeys(db, chosen);
}

/** One score level of a scope's window, as newestOfLevel walks it. */
export interface Level {
  table: string;
  stream: string;
  /** FTS5 query of the level's rows (the match and the coverage of every scored field). */
  expr: string;
  score: number;
  lo: bigint;
  hi: bigint;
  /**
   * The scope's visibility over `records r` (no payload conditions: every column it reads is in
   * both indexes), or null when the FTS table alone is exact.
   */
  visible: SqlPart | null;
}

/**
 * The `k` newest rows of a score level in the full order, or null when the walk does not apply:
 * fewer than k rows in the level, a null time among its k newest by rowid, or `walkLimit`
 * (search-tuning.ts) stream rows or more at or after their oldest time. Exact for any data: the k
 * newest by rowid are k rows at or after T, so no row before T can be among the best k.
 */
export function newestOfLevel(
  db: SqliteDb,
  level: Level,
  k: number,
  walkLimit: number,
): CandidateRow[] | null {
  const { table } = level;
  const visible = level.visible ?? { sql: "1", params: [] };
  const seed = db
    .stmt(
      `SELECT r.time FROM ${table} JOIN records r INDEXED BY records_search_key ON r.id = ${table}.rowid
       WHERE ${table} MATCH ? AND ${table}.rowid BETWEEN ? AND ? AND ${visible.sql}
       ORDER BY ${table}.rowid DESC LIMIT ?`,
    )
    .pluck()
    .all(level.expr, level.lo, level.hi, ...visible.params, k) as (string | null)[];
  if (seed.length < k || seed.some((t) => t === null)) return null;
  const since = (seed as string[]).reduce((a, b) => (a < b ? a : b));
  // The guard steps to the walkLimit-th row (cheaper than counting and taking the min up to it,
  // which only a walk that goes ahead needs).
  if (walkLimit < 1) return null;
  const tooMany = db
    .stmt(
      `SELECT 1 FROM records INDEXED BY records_stream_time
       WHERE stream = ? AND deleted = 0 AND time >= ? LIMIT 1 OFFSET ?`,
    )
    .get(level.stream, since, walkLimit - 1);
  if (tooMany !== undefined) return null;
  const after = db
    .stmt(
      `SELECT min(id) AS lo FROM (SELECT id FROM records INDEXED BY records_stream_time
       WHERE stream = ? AND deleted = 0 AND time >= ? LIMIT ?)`,
    )
    .get(level.stream, since, walkLimit) as { lo: number };
  const lo = BigInt(after.lo) > level.lo ? BigInt(after.lo) : level.lo;
  const rows = db
    .stmt(
      `SELECT r.id, ? AS score, r.time FROM records r INDEXED BY records_stream_time
       WHERE r.stream = ? AND r.deleted = 0 AND r.time >= ? AND r.id BETWEEN ? AND ? AND ${visible.sql}
         AND r.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?)
       ORDER BY r.time DESC, r.connection_id, r.stream, r.record_id LIMIT ?`,
    )
    .all(
      level.score,
      level.stream,
      since,
      lo,
      level.hi,
      ...visible.params,
      level.expr,
      lo,
      level.hi,
      k,
    ) as Ranked[];
  return withKeys(db, rows);
}
