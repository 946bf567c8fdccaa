// Scope-local search ranking, the same on SQLite and Postgres: which matches are ranked, what a
// score means, and how matched_estimate is counted — all from what the grant can see.
//
// Design (issue 8 finding 3, issue 10 search rows). Noninterference forbids collection statistics
// taken over hidden rows, and exact visible statistics (N, df, avgdl over the scope) cost a scan
// of every visible posting of a common term on every query — the very scan that made FTS5's
// bm25() take 44–136 ms at 1M records. So the score uses no collection statistics at all:
//
// - Candidates: a scope's visible matches (its granted connections, time range and conditions;
//   every term occurring in its granted search fields). At most `rankWindow` of them are ranked
//   exactly (recall complete); past that, its `rankWindow` newest by store row id (insertion
//   order, which hidden writes never reorder) and recall says "candidate_window".
// - Score: the number of the scope's granted search fields in which some query term occurs
//   (a word or prefix as such; a phrase when all its words occur in the field, positions aside).
//   It is an integer read from the record's own granted fields only, so it is identical on both
//   stores and cannot move with anything hidden. Equal scores keep the contract's tie order:
//   time desc (nulls last), connection, stream, record id — newest first.
// - matched_estimate (only when recall is incomplete): the window plus the older visible matches,
//   counted up to ESTIMATE_EXTRA of them; at the cap it is a floor (window + ESTIMATE_EXTRA).
//   Counting walks visible matches only, so hidden records never move it.

/** How many visible matches past a full window are counted for matched_estimate. */
export const ESTIMATE_EXTRA = 10_000;

/**
 * matched_estimate of a scope whose window is full and `older` visible matches (capped) follow.
 * `extra` is ESTIMATE_EXTRA except in tests of the SQLite store's branches (search-tuning.ts).
 */
export function matchedEstimate(window: number, older: number, extra = ESTIMATE_EXTRA): number {
  return window + Math.min(older, extra);
}
