// A scope's best search candidates on SQLite (core/search-ranking.ts defines what they are): the
// window of visible matches, the coverage score, and the contract's tie order — computed so that a
// common term does not pay per window row for what only the page needs.
//
// Where the time went at 1M records (profiled, CPU ms per scope for a common term): the window scan
// 1–2, the coverage score of every window row 6–14 (one FTS5 scan and one in-memory list per granted
// field), and reading `records` rows for the time of every window row 5–7. So:
// - A granted field no window row covers adds 0 to every score: one FTS5 probe (LIMIT 1) finds
//   that, and the field is left out (a `from` field never holds common words).
// - The rows covered in every remaining field are the top score level. When there are at least k
//   of them, the page lies among them and nobody else needs a score or a time; otherwise every
//   window row is scored as before.
// - Times come from the covering index records_search_key (migration 6), not from records rows;
//   records rows are read only for the rows at or above the k-th (score, time), ties included.
// - Later (CPU per "invoice" search over three streams, 8.1 -> 5.6 ms; floor 2.3 ms, the newest
//   20,000 doclist rows counted in each stream): a full window of a plain scope is found by
//   stepping to its rankWindow-th match (count/min/max over it cost twice as much); one word or
//   prefix tests coverage without re-testing the match; the older count walks doclists forward.
//   What is left is mostly that floor (window and older count, ~0.4 ms per 10,000 rows per stream)
//   and the top level of a stream whose page lies far back in time (the bank stream: ~0.6 ms).
// Every shortcut is a decision about work, never about the answer: it is exact for any data, and
// the probes over the window's rowid span can only see more rows than the window, so what they
// decide (a field covers none of the window) holds for the window too.
import { type StreamScope, scopeGrantsTime } from "../../core/grant.js";
import { matchedEstimate } from "../../core/search-ranking.js";
import type { SearchQuery } from "../store.js";
import type { SqliteDb } from "./db.js";
import { type SqlParam, type SqlPart, scopeWhere } from "./scope-sql.js";
import { type Candidate, grantedColumns } from "./search-hits.js";
import { type CandidateRow, newestOfLevel, rankCandidates } from "./search-rank.js";
import { layoutFields, searchTable } from "./search-tables.js";
import { coverageExpr, matchAllExpr } from "./search-text.js";
import type { SearchTuning } from "./search-tuning.js";

export interface ScopeCandidates {
  rows: Candidate[];
  /** Matches in the ranked window (at most rankWindow). */
  total: number;
  complete: boolean;
  estimate: number;
}

/** True when the scope sees every connection of its connector (then the FTS table alone is exact). */
function seesAllConnections(db: SqliteDb, scope: StreamScope): boolean {
  const ids = db
    .stmt("SELECT connection_id FROM connections WHERE connector_key = ?")
    .pluck()
    .all(scope.connectorKey) as string[];
  return ids.every((id) => scope.connectionIds.includes(id));
}

/**
 * The window as later statements restrict to it: its rowid span (bound as integers: FTS5 ignores a
 * rowid constraint bound as a double and scans every match), and for a filtered scope its rowids
 * (tested after the match, `+rowid`: offered to FTS5 as a constraint, the IN list made it run the
 * whole query once per window row, 85 ms instead of 4 for 2,000 rows).
 */
interface Window {
  table: string;
  n: number;
  lo: bigint;
  hi: bigint;
  /** JSON array of the window's rowids when the span alone would admit rows outside it. */
  ids: string | null;
}

function windowIn(w: Window): SqlPart {
  const span = `${w.table}.rowid BETWEEN ? AND ?`;
  return w.ids === null
    ? { sql: span, params: [w.lo, w.hi] as unknown as SqlParam[] }
    : {
        sql: `${span} AND +${w.table}.rowid IN (SELECT value FROM json_each(?))`,
        params: [w.lo, w.hi, w.ids] as unknown as SqlParam[],
      };
}

interface WindowHead {
  n: number;
  lo: number;
  hi: number;
  ids?: string;
}

/**
 * The window of a scope the FTS table answers alone. Full: its oldest row is the rankWindow-th
 * newest match and its newest the first (FTS5 steps over a doclist faster than it feeds
 * count/min/max). Otherwise it is every match: counted walking forward, its ends read directly.
 * Null for a rankWindow below 1 (the caller's LIMIT then decides).
 */
function plainWindow(db: SqliteDb, table: string, match: string, rankWindow: number): WindowHead | null {
  if (rankWindow < 1) return null;
  const nth = db
    .stmt(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`)
    .pluck();
  const oldest = nth.get(match, rankWindow - 1) as number | undefined;
  if (oldest !== undefined) return { n: rankWindow, lo: oldest, hi: nth.get(match, 0) as number };
  const n = db.stmt(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck().get(match) as number;
  if (n === 0) return { n, lo: 0, hi: 0 };
  const first = db
    .stmt(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid ASC LIMIT 1`)
    .pluck()
    .get(match) as number;
  return { n, lo: first, hi: nth.get(match, 0) as number };
}

/** Rows of the window matching `expr` (an FTS5 query), as a SELECT of `id`. */
function windowRows(w: Window, expr: string): SqlPart {
  const within = windowIn(w);
  return {
    sql: `SELECT ${w.table}.rowid AS id FROM ${w.table} WHERE ${w.table} MATCH ? AND ${within.sql}`,
    params: [expr, ...within.params],
  };
}

/** A scope's best `k` candidates in the full order, and what its window holds. */
export function scopeCandidates(
  db: SqliteDb,
  scope: StreamScope,
  query: SearchQuery & { k: number },
  tuning: SearchTuning,
): ScopeCandidates {
  const none = { rows: [], total: 0, complete: true, estimate: 0 };
  const info = searchTable(db, scope.connectorKey, scope.stream.name);
  if (!info) return none;
  const columns = grantedColumns(scope, info);
  if (columns.length === 0) return none;
  const table = info.name;
  // With every indexed column granted the column filter is a no-op and is left out.
  const everyColumn = columns.length === layoutFields(info).length;
  const match = matchAllExpr(query.terms, everyColumn ? null : columns.map((c) => c.column));
  // The table holds only this stream's live rows (deletes remove them), so without a time range,
  // conditions or hidden connections it answers alone; FTS5 walks its doclist newest first and
  // stops at the window. Otherwise a join filters before the window is counted — through the
  // covering index when no condition reads the payload.
  const plain =
    !scope.since && !scope.until && query.conditions.length === 0 && seesAllConnections(db, scope);
  const where: SqlPart = plain ? { sql: "1", params: [] } : scopeWhere(scope, query.conditions);
  const records = query.conditions.length === 0 ? "records r INDEXED BY records_search_key" : "records r";
  const from = plain ? table : `${table} JOIN ${records} ON r.id = ${table}.rowid`;
  const head =
    (plain ? plainWindow(db, table, match, query.rankWindow) : null) ??
    (db
      .stmt(
        `SELECT count(*) AS n, min(id) AS lo, max(id) AS hi${plain ? "" : ", json_group_array(id) AS ids"}
         FROM (SELECT ${table}.rowid AS id FROM ${from}
               WHERE ${table} MATCH ? AND ${where.sql} ORDER BY ${table}.rowid DESC LIMIT ?)`,
      )
      .get(match, ...where.params, query.rankWindow) as WindowHead);
  if (head.n === 0) return none;
  const w: Window = {
    table,
    n: head.n,
    lo: BigInt(head.lo),
    hi: BigInt(head.hi),
    ids: head.ids ?? null,
  };
  const grantsTime = scopeGrantsTime(scope);
  const k = query.k;
  // One word or prefix: a row covered in a granted field matches, so the coverage test alone
  // selects the same rows as the match AND it (FTS5 walks one doclist instead of two).
  const impliesMatch = query.terms.length === 1 && query.terms[0].kind !== "phrase";
  const covered = (column: number) =>
    impliesMatch
      ? coverageExpr(query.terms, column)
      : `(${match}) AND (${coverageExpr(query.terms, column)})`;
  // A small window (a selective query) is scored row by row at once: its few postings cost less
  // than probing fields and trying the top level first.
  const small = w.n <= tuning.walkMinWindow;
  // A single granted field covers every match (score 1); otherwise drop the fields no window row covers.
  const scored =
    columns.length === 1
      ? []
      : small
        ? columns
        : columns.filter((c) => {
            // Over the span alone: a row outside a filtered window can only keep a field (slower,
            // never different), and the window's rowid list is not rebuilt per field.
            const probe = windowRows({ ...w, ids: null }, covered(c.column));
            return db.stmt(`${probe.sql} LIMIT 1`).get(...probe.params) !== undefined;
          });
  const base = columns.length === 1 ? 1 : 0;
  // The top level: rows covered in every scored field (the whole window when none is scored).
  const topExpr =
    impliesMatch && scored.length > 0
      ? scored.map((c) => `(${coverageExpr(query.terms, c.column)})`).join(" AND ")
      : [`(${match})`, ...scored.map((c) => `(${coverageExpr(query.terms, c.column)})`)].join(" AND ");
  const topScore = base + scored.length;
  // The walk pays off only past a small window.
  const walk =
    grantsTime && query.conditions.length === 0 && !small
      ? newestOfLevel(
          db,
          {
            table,
            stream: scope.stream.name,
            expr: topExpr,
            score: topScore,
            lo: w.lo,
            hi: w.hi,
            visible: plain ? null : where,
          },
          k,
          tuning.walkLimit,
        )
      : null;
  let rows: CandidateRow[] = walk ?? [];
  if (walk === null && !(small && scored.length > 0)) {
    const level = windowRows(w, topExpr);
    rows = rankCandidates(
      db,
      { sql: `SELECT id, ${topScore} AS score FROM (${level.sql})`, params: level.params },
      { grantsTime, k },
    );
  }
  if (scored.length > 0 && rows.length < k && rows.length < w.n) {
    // Fewer than k rows reach the top level: score every window row, one FTS5 span scan per field.
    // (The window is materialized: flattened into the scoring query, the same FTS5 table queried
    // in the IN lists made its MATCH answer rows that do not match.)
    const all = windowRows(w, match);
    const span = `SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?`;
    const score = scored.map(() => `(w.id IN (${span}))`).join(" + ");
    // Each list holds the span's matches covered in the field (window rows all match, so their
    // membership is the same as in the field's whole coverage list, which for several common words
    // is many times longer: 4.9 -> 3.1 ms for "meeting project" in the bank stream at 1M).
    const coverage = scored.flatMap((c) => [covered(c.column), w.lo, w.hi]);
    rows = rankCandidates(
      db,
      {
        sql: `WITH w AS MATERIALIZED (${all.sql}) SELECT w.id, ${base} + ${score} AS score FROM w`,
        params: [...all.params, ...(coverage as unknown as SqlParam[])],
      },
      { grantsTime, k },
    );
  }
  // Backstop: the index holds only live rows of the stream; anything else is dropped.
  const candidates: Candidate[] = rows
    .filter(
      (r) =>
        !r.deleted &&
        r.stream === scope.stream.name &&
        r.connector_key === scope.connectorKey &&
        scope.connectionIds.includes(r.connection_id),
    )
    .map(({ deleted: _d, ...r }) => ({ ...r, scope, table, columns }));
  const total = w.n;
  if (total < query.rankWindow) return { rows: candidates, total, complete: true, estimate: total };
  // The window is full: count older visible matches (capped) for recall and the estimate. Any
  // estimateExtra of them give the same count, so FTS5 walks its doclists forward (from the oldest),
  // which costs less per row than backward (0.39 vs 0.49 ms per 10,000 rows at 1M records).
  const older = db
    .stmt(
      `SELECT count(*) FROM (SELECT 1 FROM ${from}
       WHERE ${table} MATCH ? AND ${table}.rowid < ? AND ${where.sql} LIMIT ?)`,
    )
    .pluck()
    .get(match, w.lo, ...where.params, tuning.estimateExtra) as number;
  if (older === 0) return { rows: candidates, total, complete: true, estimate: total };
  return {
    rows: candidates,
    total,
    complete: false,
    estimate: matchedEstimate(total, older, tuning.estimateExtra),
  };
}
