// Text fields on Postgres: 65,536-code-point chunks with size and digest beside them, so a window
// reads at most two chunks (substr counts characters = code points in a UTF8 database);
// text-match.ts finds q.
import type pg from "pg";
import { sha256Digest } from "../../core/ids.js";
import { CHUNK_CHARS, codePointLength, splitChunks } from "../../core/text-chunks.js";
import type { Queryable } from "./pool.js";

export interface TextFieldRow {
  rid: string;
  path: string;
  sizeChars: number;
  digest: string;
  chunks: string[];
}

/** Split a text value for storage. */
export function textFieldRow(rid: string, path: string, text: string): TextFieldRow {
  return {
    rid,
    path,
    sizeChars: codePointLength(text),
    digest: sha256Digest(text),
    chunks: splitChunks(text),
  };
}

/** Insert text-field rows and their chunks (the caller already removed the old ones). */
export async function insertTextFields(client: pg.PoolClient, rows: TextFieldRow[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO text_fields (rid, path, size_chars, digest, chunk_count)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::int[])`,
    [
      rows.map((r) => r.rid),
      rows.map((r) => r.path),
      rows.map((r) => r.sizeChars),
      rows.map((r) => r.digest),
      rows.map((r) => r.chunks.length),
    ],
  );
  // Chunks go in slices so one statement never carries more than ~64 MiB of text.
  let batch: { rid: string; path: string; seq: number; body: string }[] = [];
  let batchChars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await client.query(
      `INSERT INTO text_chunks (rid, path, seq, body)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[])`,
      [batch.map((c) => c.rid), batch.map((c) => c.path), batch.map((c) => c.seq), batch.map((c) => c.body)],
    );
    batch = [];
    batchChars = 0;
  };
  for (const row of rows) {
    for (const [seq, body] of row.chunks.entries()) {
      batch.push({ rid: row.rid, path: row.path, seq, body });
      batchChars += body.length;
      if (batchChars >= 16 * 1024 * 1024) await flush();
    }
  }
  await flush();
}

export interface TextPrefix {
  sizeChars: number;
  digest: string;
  /** The first `maxChars` code points (the whole text when it is shorter). */
  text: string;
}

/**
 * Text fields of many records, each cut to `maxChars` code points (undefined = whole), keyed by
 * rid then path. Only the chunks the cut needs are read.
 */
export async function readTextPrefixes(
  db: Queryable,
  rids: string[],
  options: {
    paths: string[] | null;
    maxChars?: number;
    /** Paths whose size and digest are wanted but no text (binary fields on a preview read). */
    metaOnly?: string[];
  },
): Promise<Map<string, Map<string, TextPrefix>>> {
  const out = new Map<string, Map<string, TextPrefix>>();
  if (rids.length === 0 || (options.paths && options.paths.length === 0)) return out;
  const limit = options.maxChars ?? Number.MAX_SAFE_INTEGER;
  const { rows } = await db.query<{
    rid: string;
    path: string;
    size_chars: string;
    digest: string;
    text: string | null;
  }>(
    `SELECT f.rid, f.path, f.size_chars, f.digest,
            string_agg(substr(c.body, 1, LEAST(${CHUNK_CHARS}::bigint, $3::bigint - c.seq::bigint * ${CHUNK_CHARS})::int),
                       '' ORDER BY c.seq) AS text
     FROM text_fields f
     LEFT JOIN text_chunks c ON c.rid = f.rid AND c.path = f.path AND c.seq::bigint * ${CHUNK_CHARS} < $3::bigint
       AND NOT (f.path = ANY($4::text[]))
     WHERE f.rid = ANY($1::bigint[]) AND ($2::text[] IS NULL OR f.path = ANY($2::text[]))
     GROUP BY f.rid, f.path, f.size_chars, f.digest`,
    [rids, options.paths, limit, options.metaOnly ?? []],
  );
  for (const row of rows) {
    let byPath = out.get(row.rid);
    if (!byPath) {
      byPath = new Map();
      out.set(row.rid, byPath);
    }
    byPath.set(row.path, { sizeChars: Number(row.size_chars), digest: row.digest, text: row.text ?? "" });
  }
  return out;
}

/** Code points [start, end) of a stored field, read from at most two chunks. */
export async function readTextRange(
  db: Queryable,
  ref: { rid: string; path: string },
  span: { start: number; end: number },
): Promise<string> {
  if (span.end <= span.start) return "";
  const first = Math.floor(span.start / CHUNK_CHARS);
  const last = Math.floor((span.end - 1) / CHUNK_CHARS);
  const { rows } = await db.query<{ part: string }>(
    `SELECT substr(body, GREATEST($3::bigint - seq::bigint * ${CHUNK_CHARS}, 0)::int + 1,
                   (LEAST($4::bigint - seq::bigint * ${CHUNK_CHARS}, ${CHUNK_CHARS})
                    - GREATEST($3::bigint - seq::bigint * ${CHUNK_CHARS}, 0))::int) AS part
     FROM text_chunks WHERE rid = $1 AND path = $2 AND seq BETWEEN $5 AND $6 ORDER BY seq`,
    [ref.rid, ref.path, span.start, span.end, first, last],
  );
  return rows.map((r) => r.part).join("");
}
