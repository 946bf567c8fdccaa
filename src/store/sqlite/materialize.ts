// Turns a records row into a StoredRecord: reassembles (or previews) granted text fields from their
// chunks, puts back the sizes of binary fields a preview read left in the store (from their chunk
// metadata, or for rows stored before binary fields moved to chunks, from the payload), and projects
// the payload to the scope's fields.
import { binaryFieldsByConnector, type StreamScope } from "../../core/grant.js";
import { chunkedFields } from "../../core/manifest.js";
import { isPathGranted, projectData, projectionPaths, setPath } from "../../core/projection.js";
import { observedPaths, parseStamps, visibleStamp } from "../../core/stamps.js";
import type { StoredRecord } from "../store.js";
import type { SqliteDb } from "./db.js";
import { jsonPath } from "./scope-sql.js";
import { readText, readTextRange, type TextMeta, textMetas } from "./text-store.js";

export const RECORD_COLUMNS =
  "r.id, r.connection_id, r.connector_key, r.stream, r.record_id, r.payload, r.emitted_at, r.time, r.version, r.digest, r.deleted, r.stamps, r.base_version, r.base_emitted_at";

/**
 * RECORD_COLUMNS for a read that leaves binary fields in the store (issue 9 item 7): the payload
 * without them (json_remove, in SQL) and `binary_sizes`, a JSON array of their sizes in code points
 * (null where absent) in the order of each connector's `binary_fields`. Streams of several
 * connectors are told apart by r.connector_key. Paths are validated field paths, so inlining them
 * as SQL literals is safe.
 */
export function recordColumns(scopes: StreamScope[], projectBinary: boolean): string {
  const byKey = projectBinary ? binaryFieldsByConnector(scopes) : new Map<string, string[]>();
  if (byKey.size === 0) return RECORD_COLUMNS;
  const payload: string[] = [];
  const sizes: string[] = [];
  for (const [key, paths] of byKey) {
    const literals = paths.map((p) => `'${jsonPath(p)}'`);
    const when = `WHEN '${key.replaceAll("'", "''")}' THEN`;
    payload.push(`${when} json_remove(r.payload, ${literals.join(", ")})`);
    sizes.push(
      `${when} json_array(${literals.map((l) => `length(json_extract(r.payload, ${l}))`).join(", ")})`,
    );
  }
  const columns = RECORD_COLUMNS.replace(
    "r.payload",
    `CASE r.connector_key ${payload.join(" ")} ELSE r.payload END AS payload`,
  );
  return `${columns}, CASE r.connector_key ${sizes.join(" ")} END AS binary_sizes`;
}

export interface RecordRow {
  id: number;
  connection_id: string;
  connector_key: string;
  stream: string;
  record_id: string;
  payload: string;
  emitted_at: string;
  time: string | null;
  version: number;
  digest: string;
  deleted: number;
  stamps: string | null;
  base_version: number | null;
  base_emitted_at: string | null;
  sort_value?: string | number | null;
  /** From recordColumns: sizes of the binary fields left in the store (JSON array). */
  binary_sizes?: string | null;
}

/**
 * The (version, emitted_at) a scope observes (core/stamps.ts): the stored ones unless the record
 * was updated since its base and the scope projects fields (no JSON work otherwise).
 */
export function observedStamp(
  row: Pick<RecordRow, "version" | "emitted_at" | "stamps" | "base_version" | "base_emitted_at">,
  scope: StreamScope,
): { version: number; emittedAt: string } {
  if (row.stamps === null || scope.fields === "all")
    return { version: row.version, emittedAt: row.emitted_at };
  return visibleStamp(
    {
      version: row.version,
      emittedAt: row.emitted_at,
      baseVersion: row.base_version,
      baseEmittedAt: row.base_emitted_at,
      stamps: parseStamps(row.stamps),
    },
    observedPaths(scope),
  );
}

/** A text field of a record as a page read gives it: whole, or already cut to the preview. */
export interface PageText extends TextMeta {
  text: string;
}

/**
 * The text fields of a page of record rows in one statement. With `previewChars`, a field longer
 * than it comes back cut in SQL (substr counts code points, as windows do; a preview never passes
 * the first 65,536-code-point chunk), so the rest of a long body is never read.
 */
export function readPageTexts(
  db: SqliteDb,
  rowIds: number[],
  options: { previewChars?: number },
): Map<number, PageText[]> {
  const out = new Map<number, PageText[]>();
  if (rowIds.length === 0) return out;
  const preview = options.previewChars ?? null;
  const rows = db
    .stmt(
      `SELECT f.record_row, f.path, f.size_chars, f.digest, f.chunk_count,
              CASE WHEN @preview IS NOT NULL AND f.size_chars > @preview THEN substr(coalesce(f.text, c.text), 1, @preview)
                   ELSE coalesce(f.text, c.text, '') END AS text
       FROM text_fields f LEFT JOIN text_chunks c ON c.record_row = f.record_row AND c.path = f.path
       WHERE f.record_row IN (SELECT value FROM json_each(@ids))
         AND (c.seq IS NULL OR c.seq = 0 OR @preview IS NULL OR f.size_chars <= @preview)
       ORDER BY f.record_row, f.path, c.seq`,
    )
    .all({ preview, ids: JSON.stringify(rowIds) }) as (PageText & { record_row: number })[];
  let last: PageText | undefined;
  for (const { record_row, ...row } of rows) {
    if (last && last.path === row.path && out.get(record_row)?.at(-1) === last) {
      last.text += row.text; // the next chunk of the same field
      continue;
    }
    last = row;
    const list = out.get(record_row);
    if (list) list.push(row);
    else out.set(record_row, [row]);
  }
  return out;
}

function pathVisible(path: string, visible: string[] | null): boolean {
  return visible === null || visible.some((p) => path === p || path.startsWith(`${p}.`));
}

export function materialize(
  db: SqliteDb,
  row: RecordRow,
  options: {
    scope: StreamScope;
    fields?: string[];
    previewChars?: number;
    /** This row's texts from readPageTexts (a page read); read here, field by field, when absent. */
    texts?: PageText[];
  },
): StoredRecord {
  const { scope, fields, previewChars } = options;
  const stream = scope.stream;
  const data = JSON.parse(row.payload) as Record<string, unknown>;
  const visible = projectionPaths({
    granted: scope.fields,
    requested: fields,
    primaryKey: stream.primary_key,
  });
  let previews: StoredRecord["previews"];
  // A preview read leaves binary bytes in the store: "" plus the size and digest from the chunk
  // metadata (a row stored with the value inline gives its size only: hashing would read the bytes).
  const binaryPreview = (path: string, sizeChars: number, digest: string): boolean => {
    if (previewChars === undefined || !stream.binary_fields?.includes(path)) return false;
    setPath(data, path, "");
    previews ??= {};
    previews[path] = { sizeChars, digest, complete: false };
    return true;
  };
  const chunked = chunkedFields(stream).length > 0;
  if (!row.deleted && chunked && options.texts) {
    for (const t of options.texts) {
      if (!isPathGranted(t.path, scope.fields) || !pathVisible(t.path, visible)) continue;
      if (binaryPreview(t.path, t.size_chars, t.digest)) continue;
      setPath(data, t.path, t.text);
      if (previewChars !== undefined && t.size_chars > previewChars) {
        previews ??= {};
        previews[t.path] = { sizeChars: t.size_chars, digest: t.digest, complete: false };
      }
    }
  } else if (!row.deleted && chunked) {
    for (const meta of textMetas(db, row.id)) {
      if (!isPathGranted(meta.path, scope.fields) || !pathVisible(meta.path, visible)) continue;
      if (binaryPreview(meta.path, meta.size_chars, meta.digest)) continue;
      if (previewChars !== undefined && meta.size_chars > previewChars) {
        const end = Math.min(previewChars, meta.size_chars);
        setPath(data, meta.path, readTextRange(db, row.id, { path: meta.path, start: 0, end }));
        previews ??= {};
        previews[meta.path] = { sizeChars: meta.size_chars, digest: meta.digest, complete: false };
      } else {
        setPath(data, meta.path, readText(db, row.id, meta.path));
      }
    }
  }
  if (!row.deleted && typeof row.binary_sizes === "string") {
    const sizes = JSON.parse(row.binary_sizes) as (number | null)[];
    for (const [i, path] of (stream.binary_fields ?? []).entries()) {
      const size = sizes[i];
      if (size === null || size === undefined) continue;
      if (!isPathGranted(path, scope.fields) || !pathVisible(path, visible)) continue;
      setPath(data, path, "");
      previews ??= {};
      previews[path] = { sizeChars: size, complete: false };
    }
  }
  const seen = observedStamp(row, scope);
  const record: StoredRecord = {
    connectionId: row.connection_id,
    connectorKey: row.connector_key,
    stream: row.stream,
    recordId: row.record_id,
    emittedAt: seen.emittedAt,
    time: row.time,
    version: seen.version,
    digest: row.digest,
    deleted: row.deleted === 1,
    data: projectData(data, { granted: scope.fields, requested: fields, primaryKey: stream.primary_key }),
  };
  if (previews) record.previews = previews;
  if ("sort_value" in row) record.sortValue = row.sort_value ?? null;
  return record;
}
