// Turns records rows into StoredRecords: puts text fields back from their chunks (only those the
// projection keeps, cut to previewChars when asked), then projects to the granted fields; binary
// fields a preview read left in the store come back as "" with their size in previews.
import { binaryFieldsByConnector, type StreamScope } from "../../core/grant.js";
import { isFieldPath } from "../../core/ids.js";
import { chunkedFields } from "../../core/manifest.js";
import { isPathGranted, projectData, projectionPaths, setPath } from "../../core/projection.js";
import { CHUNK_CHARS } from "../../core/text-chunks.js";
import type { StoredRecord } from "../store.js";
import type { Queryable } from "./pool.js";
import { observedStamp } from "./seen-sql.js";
import type { Params } from "./sql-scope.js";
import { readTextPrefixes, type TextPrefix } from "./text-store.js";

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
  /** From inlineTextsSql: the row's text fields read in the same statement (see there). */
  texts?: InlineText[] | null;
}

/** A text field read with its row: `text` is null when it was too long to inline (read apart). */
interface InlineText {
  path: string;
  size: number | string;
  digest: string;
  text: string | null;
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

/** Text-field paths the rows of these scopes may show (hydrateRecords narrows them per row). */
export function candidateTextPaths(
  scopes: StreamScope[],
  fields?: string[],
): { paths: string[]; binary: string[] } {
  const out = new Set<string>();
  const textSomewhere = new Set<string>();
  for (const scope of scopes) {
    const paths = projectionPaths({
      granted: scope.fields,
      requested: fields,
      primaryKey: scope.stream.primary_key,
    });
    for (const p of visibleTextPaths(chunkedFields(scope.stream), paths)) {
      out.add(p);
      if (!scope.stream.binary_fields?.includes(p)) textSomewhere.add(p);
    }
  }
  // Binary in every scope that shows it: a preview read wants only its size (see hydrateRecords).
  return { paths: [...out], binary: [...out].filter((p) => !textSomewhere.has(p)) };
}

/**
 * A select-list expression (alias r = records) reading the row's text fields among `paths`, each
 * cut to `maxChars` code points (undefined = whole), in the row's own statement: a page is one
 * round trip. A field whose cut passes one chunk comes back without its text (so no statement
 * carries huge values through JSON) and hydrateRecords reads it apart, as before.
 */
export function inlineTextsSql(
  params: Params,
  candidates: { paths: string[]; binary: string[] },
  maxChars?: number,
): string {
  const max = `${params.add(String(maxChars ?? Number.MAX_SAFE_INTEGER))}::bigint`;
  const metaOnly = maxChars === undefined ? [] : candidates.binary;
  const paths = params.add(candidates.paths);
  return `(SELECT json_agg(json_build_object('path', f.path, 'size', f.size_chars, 'digest', f.digest, 'text',
      CASE WHEN f.path = ANY(${params.add(metaOnly)}::text[]) THEN ''
           WHEN LEAST(f.size_chars, ${max}) <= ${CHUNK_CHARS} THEN coalesce((SELECT substr(c.body, 1, LEAST(${max}, ${CHUNK_CHARS})::int)
        FROM text_chunks c WHERE c.rid = f.rid AND c.path = f.path AND c.seq = 0), '') END))
    FROM text_fields f WHERE f.rid = r.rid AND NOT r.deleted AND f.path = ANY(${paths}::text[]))`;
}

export interface HydrateOptions {
  /** The scope a row was read under (its stream, granted fields). */
  scopeOf: (row: RecordRow) => StreamScope;
  fields?: string[];
  previewChars?: number;
}

/** The rows' text fields: from their inline column (inlineTextsSql) where read, else one statement. */
async function readTexts(
  db: Queryable,
  plans: { row: RecordRow; scope: StreamScope; textPaths: string[] }[],
  maxChars: number | undefined,
): Promise<Map<string, Map<string, TextPrefix>>> {
  const out = new Map<string, Map<string, TextPrefix>>();
  const apart = plans.filter((p) => p.textPaths.length > 0 && p.row.texts === undefined);
  for (const { row, scope, textPaths } of plans) {
    if (row.texts === undefined || textPaths.length === 0) continue;
    const byPath = new Map<string, TextPrefix>();
    for (const t of row.texts ?? []) {
      if (t.text === null) {
        if (textPaths.includes(t.path)) apart.push({ row, scope, textPaths: [t.path] });
      } else byPath.set(t.path, { sizeChars: Number(t.size), digest: t.digest, text: t.text });
    }
    out.set(row.rid, byPath);
  }
  if (apart.length === 0) return out;
  const wanted = [...new Set(apart.flatMap((p) => p.textPaths))];
  // A preview read leaves binary bytes in the store: their chunks are not read, only their sizes.
  // (A path binary in one connector of a fan-in page and text in another is read as text.)
  const metaOnly =
    maxChars === undefined
      ? []
      : wanted.filter((path) =>
          apart.every((p) => !p.textPaths.includes(path) || p.scope.stream.binary_fields?.includes(path)),
        );
  const read = await readTextPrefixes(db, [...new Set(apart.map((p) => p.row.rid))], {
    paths: wanted,
    maxChars,
    metaOnly,
  });
  for (const [rid, byPath] of read) {
    const into = out.get(rid) ?? new Map<string, TextPrefix>();
    for (const [path, text] of byPath) if (!into.has(path)) into.set(path, text);
    out.set(rid, into);
  }
  return out;
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
  const texts = await readTexts(db, plans, options.previewChars);

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
        previews[path] = { sizeChars: text.sizeChars, digest: text.digest, complete: false };
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
