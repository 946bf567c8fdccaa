// Keeps each stream's FTS5 index in one segment after imports. FTS5 writes every committed batch as
// a new segment and merges them only partly as it goes (automerge): a 1M-record import left 9–13
// segments per table, and every clause of a search seeks and merges the doclists of each one
// (merged into one: ~40% less statement CPU per search at 1M). When writes pause — an import
// finished: no write for IDLE_MS, or the store closes — the tables written are merged into one
// segment, in steps of STEP_PAGES pages, each its own short write transaction, so that reads and
// writes interleave with a long merge. Merging changes no answer: the same rows match, only how
// the index stores them changes.
import type { SqliteDb } from "./db.js";
import { searchTable } from "./search-tables.js";

/** Quiet time after the last write before the written tables are merged. */
export const IDLE_MS = 1000;
/** Leaf pages one merge step writes (a few ms each on a 1M-record table). */
const STEP_PAGES = 64n;
/**
 * A table is merged once the rows written since its last merge are at least 1/REWRITE of it: a
 * full merge rewrites the whole index, so a small sync into a big table leaves its new segment to
 * automerge until enough accumulates (a merge then rewrites at most ~REWRITE× what was written).
 */
const REWRITE = 8;

// FTS5's records of its own state (fts5_index.c): the structure record (id 10) opens with a 4-byte
// cookie, an optional 4-byte version-2 marker, then varints for the levels and the segments; the
// averages record (id 1) opens with a varint for the number of rows.
const STRUCTURE_ID = 10;
const AVERAGES_ID = 1;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];

/** SQLite's varint (big-endian 7-bit groups), from `at`; values past 2^53 are not expected here. */
function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = at; i < bytes.length && i < at + 8; i++) {
    value = value * 128 + (bytes[i] & 0x7f);
    if (bytes[i] < 0x80) return { value, next: i + 1 };
  }
  throw new Error("fts5 record: unterminated varint");
}

function dataRecord(db: SqliteDb, table: string, id: number): Uint8Array | null {
  const block = db.stmt(`SELECT block FROM ${table}_data WHERE id = ?`).pluck().get(id) as
    | Uint8Array
    | undefined;
  return block ?? null;
}

/** The number of segments of an FTS5 table's index (0 when nothing was ever written). */
export function ftsSegments(db: SqliteDb, table: string): number {
  const record = dataRecord(db, table, STRUCTURE_ID);
  if (!record || record.length < 4) return 0;
  const v2 = STRUCTURE_V2.every((b, i) => record[4 + i] === b);
  const levels = readVarint(record, v2 ? 8 : 4);
  return readVarint(record, levels.next).value;
}

/** The number of rows an FTS5 table indexes. */
export function ftsRows(db: SqliteDb, table: string): number {
  const record = dataRecord(db, table, AVERAGES_ID);
  return record && record.length > 0 ? readVarint(record, 0).value : 0;
}

/**
 * One merge step: at most STEP_PAGES pages of the merge of every segment into one. False when the
 * index is one segment (or the step did no work).
 */
function mergeStep(db: SqliteDb, table: string): boolean {
  if (ftsSegments(db, table) <= 1) return false;
  const changes = db.stmt("SELECT total_changes()").pluck();
  const before = changes.get() as number;
  // A negative budget merges across levels (as 'optimize' does), a bounded amount at a time;
  // integers are bound as BigInt (FTS5 refuses a double).
  db.stmt(`INSERT INTO ${table}(${table}, rank) VALUES ('merge', ?)`).run(-STEP_PAGES);
  return (changes.get() as number) - before >= 2;
}

/** Tracks the rows written per stream and merges their FTS tables when writes pause. */
export class SearchMerger {
  /** Rows written since the table's last merge, by "connectorKey\0stream". */
  private readonly written = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by every write: a running idle merge stops at its next step when it changed. */
  private writes = 0;

  constructor(
    private readonly db: SqliteDb,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Note a committed batch of `rows` written rows of a stream. */
  wrote(connectorKey: string, stream: string, rows: number): void {
    if (rows <= 0) return;
    const key = `${connectorKey}\u0000${stream}`;
    this.written.set(key, (this.written.get(key) ?? 0) + rows);
    this.writes++;
    if (this.timer) clearTimeout(this.timer);
    // Unref'd: a pending merge never keeps a process alive (close() finishes it).
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.mergeIdle();
    }, this.idleMs);
    this.timer.unref();
  }

  /** The written tables due for a merge: their FTS table names with their keys. */
  private due(): { key: string; table: string }[] {
    const out: { key: string; table: string }[] = [];
    for (const [key, rows] of this.written) {
      const [connectorKey, stream] = key.split("\u0000");
      const info = searchTable(this.db, connectorKey, stream);
      if (!info) {
        this.written.delete(key);
        continue;
      }
      if (ftsSegments(this.db, info.name) <= 1) {
        this.written.delete(key);
        continue;
      }
      if (rows * REWRITE >= ftsRows(this.db, info.name)) out.push({ key, table: info.name });
    }
    return out;
  }

  /** Merge while idle, yielding between steps; stops when a write arrives (its timer resumes). */
  private async mergeIdle(): Promise<void> {
    const started = this.writes;
    try {
      for (const { key, table } of this.due()) {
        while (mergeStep(this.db, table)) {
          await new Promise((resolve) => setImmediate(resolve));
          if (this.writes !== started || !this.db.raw.open) return;
        }
        this.written.delete(key);
      }
    } catch {
      // Another process holding the write lock past busy_timeout: the merge is only an
      // optimisation, left for the next pause (the rows stay counted).
    }
  }

  /** Merge every due table now, to the end (closing: an import's last batch was written). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writes++;
    for (const { key, table } of this.due()) {
      while (mergeStep(this.db, table)) {}
      this.written.delete(key);
    }
  }
}
