// Turns records rows into StoredRecords: puts text fields back from their chunks (only those the
// projection keeps, cut to previewChars when asked), then projects to the granted fields; binary
// fields a preview read left in the store come back as "" with their size in previews.
import { binaryFieldsByConnector, type StreamScope } from "../../core/grant.js";
import { isFieldPath } from "../../core/ids.js";
import { chunkedFields } from "../../core/manifest.js";
import { isPathGranted, projectData, projectionPaths, setPath } from "../../core/projection.js";
import type { StoredRecord } from "../store.js";
import type { Queryable } from "./pool.js";
import { observedStamp } from "./seen-sql.js";
import { readTextPrefixes } from "./text-store.js";

/** Columns every record read selects (alias r = records, c = connections). */
export const RECORD_COLUMNS = `r.rid, r.connection_id, c.connector_key, r.stream, r.record_id, r.emitted_at, r.time,
  r.version, r.digest, r.deleted, r.payload, r.stamps, r.base_version, r.base_emitted_at`;
export const RECORD_FROM = "records r JOIN connections c ON c.connection_id = r.connection_id";

/**
 * RECORD_COLUMNS for a read that leaves binary fields in the store (issue 9 item 7): the payload
 * without them (`#-`, in SQL) and `binary_sizes`, their sizes in code points (null where absent) in
 * the order of each connector's `binary_fields`. Connectors are told apart by c.connector_key.
 * Paths are validated field paths (safe names), so inlining them as literals is safe.
 */
export function recordColumns(scopes: StreamScope[], projectBinary: boolean): string {
  const byKey = projectBinary ? binaryFieldsByConnector(scopes) : new Map<string, string[]>();
  if (byKey.size === 0) return RECORD_COLUMNS;
  const payload: string[] = [];
  const sizes: string[] = [];
  for (const [key, paths] of byKey) {
    const literals = paths.map((p) => {
      if (!isFieldPath(p)) throw new Error(`binary field ${JSON.stringify(p)} is not a field path`);
      return `'{${p.split(".").join(",")}}'::text[]`;
    });
    const when = `WHEN '${key.replaceAll("'", "''")}' THEN`;
    payload.push(`${when} ${literals.reduce((expr, l) => `(${expr} #- ${l})`, "r.payload")}`);
    sizes.push(`${when} jsonb_build_array(${literals.map((l) => `length(r.payload #>> ${l})`).join(", ")})`);
  }
  const columns = RECORD_COLUMNS.replace(
    "r.payload",
    `CASE c.connector_key ${payload.join(" ")} ELSE r.payload END AS payload`,
  );
  return `${columns}, CASE c.connector_key ${sizes.join(" ")} END AS binary_sizes`;
}

export interface RecordRow {
  rid: string;
  connection_id: string;
  connector_key: string;
  stream: string;
  record_id: string;
  emitted_at: string;
  time: string | null;
  version: string;
  digest: string;
  deleted: boolean;
  payload: Record<string, unknown>;
  stamps: unknown;
  base_version: string | null;
  base_emitted_at: string | null;
  /** From recordColumns: sizes of the binary fields left in the store. */
  binary_sizes?: (number | null)[] | null;
}

function isUnder(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}.`);
}

function pathVisible(path: string, paths: string[] | null): boolean {
  return paths === null || paths.some((p) => isUnder(path, p));
}

/** Text-field paths that survive a projection (null projection = every path). */
function visibleTextPaths(textFields: string[], paths: string[] | null): string[] {
  if (paths === null) return textFields;
  return textFields.filter((t) => paths.some((p) => isUnder(t, p)));
}

export interface HydrateOptions {
  /** The scope a row was read under (its stream, granted fields). */
  scopeOf: (row: RecordRow) => StreamScope;
  fields?: string[];
  previewChars?: number;
}

export async function hydrateRecords(
  db: Queryable,
  rows: RecordRow[],
  options: HydrateOptions,
): Promise<StoredRecord[]> {
  const plans = rows.map((row) => {
    const scope = options.scopeOf(row);
    const paths = projectionPaths({
      granted: scope.fields,
      requested: options.fields,
      primaryKey: scope.stream.primary_key,
    });
    const textPaths = row.deleted ? [] : visibleTextPaths(chunkedFields(scope.stream), paths);
    return { row, scope, textPaths, paths };
  });
  const wanted = [...new Set(plans.flatMap((p) => p.textPaths))];
  const needRids = plans.filter((p) => p.textPaths.length > 0).map((p) => p.row.rid);
  // A preview read leaves binary bytes in the store: their chunks are not read, only their sizes.
  // (A path binary in one connector of a fan-in page and text in another is read as text.)
  const metaOnly =
    options.previewChars === undefined
      ? []
      : wanted.filter((path) =>
          plans.every((p) => !p.textPaths.includes(path) || p.scope.stream.binary_fields?.includes(path)),
        );
  const texts = await readTextPrefixes(db, needRids, {
    paths: wanted,
    maxChars: options.previewChars,
    metaOnly,
  });

  return plans.map(({ row, scope, textPaths, paths }) => {
    const full = structuredClone(row.payload);
    let previews: StoredRecord["previews"];
    const byPath = texts.get(row.rid);
    for (const path of textPaths) {
      const text = byPath?.get(path);
      if (!text) continue;
      if (options.previewChars !== undefined && scope.stream.binary_fields?.includes(path)) {
        setPath(full, path, "");
        previews ??= {};
        previews[path] = { sizeChars: text.sizeChars, complete: false };
        continue;
      }
      setPath(full, path, text.text);
      if (options.previewChars !== undefined && text.sizeChars > options.previewChars) {
        previews ??= {};
        previews[path] = { sizeChars: text.sizeChars, digest: text.digest, complete: false };
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
      deleted: row.deleted,
      data: projectData(full, {
        granted: scope.fields,
        requested: options.fields,
        primaryKey: scope.stream.primary_key,
      }),
    };
    if (!row.deleted && Array.isArray(row.binary_sizes)) {
      const sizes = row.binary_sizes;
      for (const [i, path] of (scope.stream.binary_fields ?? []).entries()) {
        const size = sizes[i];
        if (size === null || size === undefined) continue;
        if (!isPathGranted(path, scope.fields) || !pathVisible(path, paths)) continue;
        setPath(record.data, path, "");
        previews ??= {};
        previews[path] = { sizeChars: Number(size), complete: false };
      }
    }
    if (previews) record.previews = previews;
    return record;
  });
}
