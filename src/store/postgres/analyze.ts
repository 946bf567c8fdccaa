// Planner statistics after bulk ingest: the search plan is chosen by selectivity, which Postgres
// can only judge from statistics, and autovacuum may not have analysed a freshly loaded table yet
// (migration 2 analysed the lexeme table while it was empty). This process ANALYZEs the tables
// searches read once the rows it has written since the last ANALYZE pass a threshold that doubles
// each time (10k, 20k, 40k, …), so a 1M-row import costs about seven sampled ANALYZEs.
import type pg from "pg";

const FIRST_THRESHOLD = 10_000;

export class BulkAnalyzer {
  private written = 0;
  private threshold = FIRST_THRESHOLD;
  private running: Promise<void> | null = null;

  /** Count rows a committed batch wrote; ANALYZE when the threshold is passed. */
  async note(pool: pg.Pool, rows: number): Promise<void> {
    this.written += rows;
    if (this.written < this.threshold || this.running) return;
    this.threshold = this.written * 2;
    this.running = (async () => {
      await pool.query("ANALYZE search_lex");
      await pool.query("ANALYZE records");
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
  }
}
