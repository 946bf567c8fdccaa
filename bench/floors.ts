// Raw-SQL floors for the default `npm run bench` rows: the same question asked of the same database
// on a second connection, with no grant logic, no rendering and no JSON, so every measured row can
// print its own same-run floor and the ratio (a figure alone means little on a loaded 2-core box).
import Database from "better-sqlite3";
import pg from "pg";
import { SESSION_SETTINGS } from "../src/store/postgres/pool.js";

export interface ReadFloors {
  /** 25 (+1) newest messages from one sender, and the first 512 chars (or all) of their text fields. */
  page(from: string, full?: boolean): Promise<unknown>;
  /** Messages per month, newest 100 months. */
  countByMonth(): Promise<unknown>;
  /** `limit` chars of a text field from `offset`, straight from its chunk rows. */
  fieldWindow(at: {
    connectionId: string;
    recordId: string;
    offset: number;
    limit: number;
  }): Promise<unknown>;
  close(): Promise<void>;
}

const CHUNK_CHARS = 65536;

/** The chunk rows a window touches (chunks hold CHUNK_CHARS code points each). */
function chunkSpan(offset: number, limit: number): [number, number] {
  return [Math.floor(offset / CHUNK_CHARS), Math.floor((offset + limit - 1) / CHUNK_CHARS)];
}

export function sqliteReadFloors(path: string): ReadFloors {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare(
    `SELECT r.id, r.connection_id, r.record_id, r.payload, r.time FROM records r
     WHERE r.stream = 'messages' AND r.deleted = 0 AND json_extract(r.payload, '$.from') = ?
     ORDER BY r.time DESC, r.connection_id DESC, r.record_id DESC LIMIT 26`,
  );
  const texts = db.prepare(
    `SELECT f.record_row, f.path, substr(coalesce(f.text, c.text), 1, 512) AS text FROM text_fields f
     LEFT JOIN text_chunks c ON c.record_row = f.record_row AND c.path = f.path AND c.seq = 0
     WHERE f.record_row IN (SELECT value FROM json_each(@ids))`,
  );
  const fullTexts = db.prepare(
    `SELECT record_row, path, 0 AS seq, text FROM text_fields
     WHERE record_row IN (SELECT value FROM json_each(@ids)) AND text IS NOT NULL
     UNION ALL SELECT record_row, path, seq, text FROM text_chunks
     WHERE record_row IN (SELECT value FROM json_each(@ids)) ORDER BY record_row, path, seq`,
  );
  const months = db.prepare(
    `SELECT substr(time, 1, 7) AS month, count(*) AS n FROM records
     WHERE stream = 'messages' AND deleted = 0 AND time IS NOT NULL
     GROUP BY month ORDER BY month DESC LIMIT 100`,
  );
  const rowOf = db
    .prepare("SELECT id FROM records WHERE connection_id = ? AND stream = 'messages' AND record_id = ?")
    .pluck();
  const chunks = db.prepare(
    `SELECT seq, text FROM (SELECT 0 AS seq, text FROM text_fields WHERE record_row = @row AND path = 'body' AND text IS NOT NULL
     UNION ALL SELECT seq, text FROM text_chunks WHERE record_row = @row AND path = 'body')
     WHERE seq BETWEEN @first AND @last ORDER BY seq`,
  );
  return {
    page: async (from, full) => {
      const page = rows.all(from) as { id: number }[];
      return (full ? fullTexts : texts).all({ ids: JSON.stringify(page.map((r) => r.id)) });
    },
    countByMonth: async () => months.all(),
    fieldWindow: async ({ connectionId, recordId, offset, limit }) => {
      const [lo, hi] = chunkSpan(offset, limit);
      const parts = chunks.all({ row: rowOf.get(connectionId, recordId), first: lo, last: hi }) as {
        text: string;
      }[];
      return parts
        .map((p) => p.text)
        .join("")
        .slice(offset - lo * CHUNK_CHARS, offset - lo * CHUNK_CHARS + limit);
    },
    close: async () => {
      db.close();
    },
  };
}

export function postgresReadFloors(at: { url: string; schema: string }): ReadFloors {
  // The store's own session settings (jit off, cached-working-set costs), so the floor plans alike.
  const pool = new pg.Pool({
    connectionString: at.url,
    max: 1,
    options: [...SESSION_SETTINGS, `-c search_path=${at.schema}`].join(" "),
  });
  return {
    page: async (from, full) => {
      const { rows } = await pool.query<{ rid: string }>(
        `SELECT r.rid, r.connection_id, r.record_id, r.payload, r.time FROM records r
         WHERE r.stream = 'messages' AND NOT r.deleted AND r.payload->>'from' = $1
         ORDER BY r.time DESC NULLS LAST, r.connection_id DESC, r.record_id DESC LIMIT 26`,
        [from],
      );
      return pool.query(
        full
          ? "SELECT rid, path, seq, body AS text FROM text_chunks WHERE rid = ANY($1::bigint[])"
          : "SELECT rid, path, substr(body, 1, 512) AS text FROM text_chunks WHERE rid = ANY($1::bigint[]) AND seq = 0",
        [rows.map((r) => r.rid)],
      );
    },
    countByMonth: () =>
      pool.query(
        `SELECT substr(time, 1, 7) AS month, count(*) AS n FROM records
         WHERE stream = 'messages' AND NOT deleted AND time IS NOT NULL
         GROUP BY month ORDER BY month DESC LIMIT 100`,
      ),
    // One statement, slices cut server-side (substr on EXTERNAL storage reads only those pages).
    fieldWindow: async ({ connectionId, recordId, offset, limit }) => {
      const [lo, hi] = chunkSpan(offset, limit);
      const { rows } = await pool.query<{ text: string }>(
        `SELECT substr(c.body, CASE WHEN c.seq = $3 THEN $4 ELSE 1 END, $5) AS text
         FROM records r JOIN text_chunks c ON c.rid = r.rid AND c.path = 'body' AND c.seq BETWEEN $3 AND $6
         WHERE r.connection_id = $1 AND r.stream = 'messages' AND r.record_id = $2
         ORDER BY c.seq`,
        [connectionId, recordId, lo, offset - lo * CHUNK_CHARS + 1, limit, hi],
      );
      return rows
        .map((r) => r.text)
        .join("")
        .slice(0, limit);
    },
    close: () => pool.end(),
  };
}
