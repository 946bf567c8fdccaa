// Turns a records row into a StoredRecord: reassembles (or previews) granted text fields from their
// chunks and projects the payload to the scope's fields.
import type { StreamScope } from "../../core/grant.js";
import { isPathGranted, projectData, projectionPaths, setPath } from "../../core/projection.js";
import type { StoredRecord } from "../store.js";
import type { SqliteDb } from "./db.js";
import { readText, readTextRange, textMetas } from "./text-store.js";

export const RECORD_COLUMNS =
  "r.id, r.connection_id, r.connector_key, r.stream, r.record_id, r.payload, r.emitted_at, r.time, r.version, r.digest, r.deleted";

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
  sort_value?: string | number | null;
}

function pathVisible(path: string, visible: string[] | null): boolean {
  return visible === null || visible.some((p) => path === p || path.startsWith(`${p}.`));
}

export function materialize(
  db: SqliteDb,
  row: RecordRow,
  options: { scope: StreamScope; fields?: string[]; previewChars?: number },
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
  if (!row.deleted && stream.text_fields?.length) {
    for (const meta of textMetas(db, row.id)) {
      if (!isPathGranted(meta.path, scope.fields) || !pathVisible(meta.path, visible)) continue;
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
  const record: StoredRecord = {
    connectionId: row.connection_id,
    connectorKey: row.connector_key,
    stream: row.stream,
    recordId: row.record_id,
    emittedAt: row.emitted_at,
    time: row.time,
    version: row.version,
    digest: row.digest,
    deleted: row.deleted === 1,
    data: projectData(data, { granted: scope.fields, requested: fields, primaryKey: stream.primary_key }),
  };
  if (previews) record.previews = previews;
  if ("sort_value" in row) record.sortValue = row.sort_value ?? null;
  return record;
}
