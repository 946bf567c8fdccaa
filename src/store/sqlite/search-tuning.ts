// The thresholds at which SQLite search switches strategy (search-candidates.ts, search-rank.ts).
// Each is a decision about work, never about the answer; the defaults suit real data. Tests pass
// tiny values through openSqliteStore({ searchTuning }) so that worlds of a few dozen records take
// every branch a 1M-record store takes (test/reliability/noninterference.test.ts).
import { ESTIMATE_EXTRA } from "../../core/search-ranking.js";

export interface SearchTuning {
  /** Windows at most this large are scored row by row and sorted, without probes or the walk. */
  walkMinWindow: number;
  /** Stream rows at or after T past which the time-index walk gives way to the top-k sort. */
  walkLimit: number;
  /**
   * Older visible matches counted past a full window for matched_estimate (core/search-ranking.ts
   * ESTIMATE_EXTRA). Unlike the two above it shows in answers: change it in tests only.
   */
  estimateExtra: number;
}

export const DEFAULT_SEARCH_TUNING: SearchTuning = Object.freeze({
  walkMinWindow: 1024,
  walkLimit: 4096,
  estimateExtra: ESTIMATE_EXTRA,
});
