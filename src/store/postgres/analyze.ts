// Planner statistics after bulk ingest: the search plan is chosen by selectivity, which Postgres
// can only judge from statistics, and autovacuum may not have analysed a freshly loaded table yet
// (migration 2 analysed the lexeme table while it was empty). This process ANALYZEs the tables
// searches read once the rows it has written since the last ANALYZE pass a threshold that doubles
// each time (10k, 20k, 40k, …), so a 1M-row import costs about seven sampled ANALYZEs. The same
// pass moves the search GIN indexes' pending lists into the index proper: every search scans the
// whole pending list (a full one made a one-match lookup 1–30 ms instead of 0.01 ms).
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
      // search_lex is partitioned (migration 11): each partition's GIN index has its own list.
      await pool.query(
        `SELECT gin_clean_pending_list(i.inhrelid::regclass) FROM pg_inherits i
         WHERE i.inhparent = 'search_lex_tsv'::regclass`,
      );
      await pool.query("SELECT gin_clean_pending_list('search_docs_tsv'::regclass)");
      await pool.query("ANALYZE search_lex");
      await pool.query("ANALYZE records");
      // Without statistics the planner read a page's 25 text fields with a sequential scan of
      // text_fields (60–90 ms at 200k records instead of 0.1 ms); phrase checks read search_docs.
      await pool.query("ANALYZE text_fields");
      await pool.query("ANALYZE search_docs");
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
  }
}
