// Batches access-log rows off the request path: rows wait in memory and are written together on
// a short timer, when a batch fills, before anyone reads the log, and when the store closes — so a
// clean shutdown loses nothing, and a reader always sees every row appended before its read.
// (A kill -9 may lose the rows of the last interval; the data itself is never at stake.)
import type { AccessLogEntry } from "./store.js";

const FLUSH_INTERVAL_MS = 100;
const MAX_PENDING_ROWS = 1_000;

export class AccessLogBuffer {
  private pending: AccessLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  /** `write` stores rows in order, in one transaction or statement. */
  constructor(private readonly write: (rows: AccessLogEntry[]) => Promise<void> | void) {}

  append(entry: AccessLogEntry): void {
    this.pending.push(entry);
    if (this.pending.length >= MAX_PENDING_ROWS) {
      void this.flush();
    } else if (this.timer === undefined) {
      // unref: a pending flush never keeps a finished CLI command alive (close() flushes).
      this.timer = setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Write every row appended so far; resolves once they (and earlier batches) are stored. */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    if (rows.length === 0) return this.writing;
    // Chained, so batches land in append order.
    this.writing = this.writing.then(async () => {
      try {
        await this.write(rows);
      } catch (error) {
        console.error(`pdpp: could not write ${rows.length} access-log rows:`, (error as Error).message);
      }
    });
    return this.writing;
  }
}
