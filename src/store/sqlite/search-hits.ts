// Describes one search hit: title, matched fields (positive clauses found per granted field) and a snippet
// built by core/snippet.ts from the first matched granted field's stored text.
import { windowMeta } from "../../core/canonical-json.js";
import type { StreamScope } from "../../core/grant.js";
import { getPath, isPathGranted } from "../../core/projection.js";
import { positiveClauses, type SearchClause } from "../../core/search-query.js";
import { analyzeText } from "../../core/snippet.js";
import { CHUNK_CHARS } from "../../core/text-chunks.js";
import type { StoredSearchHit } from "../store.js";
import type { SqliteDb } from "./db.js";
import { observedStamp, type RecordRow } from "./materialize.js";
import { FTS_COLUMNS, layoutFields, type SearchTableInfo } from "./search-tables.js";
import { anyClauseExpr } from "./search-text.js";
import { iterateChunks, readTextRange, textMeta } from "./text-store.js";

const MAX_SNIPPET_CHUNKS = 32;

export interface Candidate {
  id: number;
  connection_id: string;
  connector_key: string;
  stream: string;
  record_id: string;
  time: string | null;
  score: number;
  scope: StreamScope;
  /** The stream's FTS table and the scope's granted search fields with their columns in it. */
  table: string;
  columns: { field: string; column: number }[];
  /** The record as ranking read it (same snapshot): its row, parsed payload, first text chunks. */
  read?: { row: HitRow; payload: Record<string, unknown>; firstChunks: Map<string, string> };
}

/**
 * The scope's granted search fields and their FTS columns, mapped through the table's stored
 * layout (column i holds layout field i): a field counts only when the scope's manifest declares
 * it searchable and the grant includes it.
 */
export function grantedColumns(
  scope: StreamScope,
  info: SearchTableInfo,
): { field: string; column: number }[] {
  const searchable = new Set((scope.stream.query?.search ?? []).slice(0, FTS_COLUMNS));
  return layoutFields(info)
    .map((field, column) => ({ field, column }))
    .filter(({ field }) => searchable.has(field) && isPathGranted(field, scope.fields));
}
const TITLE_CHARS = 512;

function displayText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(displayText).filter((v): v is string => v !== null);
    return parts.length ? parts.join(", ") : null;
  }
  return null;
}

function isChunked(c: Candidate, field: string): boolean {
  return (c.scope.stream.text_fields ?? []).includes(field);
}

function titleOf(db: SqliteDb, c: Candidate, payload: Record<string, unknown>): string | null {
  const field = c.scope.stream.title_field;
  if (!field || !isPathGranted(field, c.scope.fields)) return null;
  if (isChunked(c, field)) {
    const meta = textMeta(db, c.id, field);
    return meta
      ? readTextRange(db, c.id, { path: field, start: 0, end: Math.min(meta.size_chars, TITLE_CHARS) })
      : null;
  }
  const value = getPath(payload, field);
  return typeof value === "string" ? value : null;
}

/** A field's analysis, and where its text starts in the field (null: not the field's own text). */
type Analysis = ReturnType<typeof analyzeText> & { offset: number | null };
const NO_SNIPPET: Analysis = { matches: true, snippet: () => null, span: () => null, offset: null };

/**
 * The field's text analysed for matching and snippets (tokenised once): the payload value, or
 * chunks until one matches; null when no term occurs in the field.
 */
function matchedText(
  db: SqliteDb,
  c: Candidate,
  field: { name: string; payload: Record<string, unknown>; clauses: SearchClause[] },
): Analysis | null {
  if (!isChunked(c, field.name)) {
    const value = getPath(field.payload, field.name);
    const text = displayText(value);
    const analysis = text === null ? null : analyzeText(text, field.clauses);
    // A list or number shown as text is not what a window of the field reads: no range for it.
    return analysis?.matches ? { ...analysis, offset: typeof value === "string" ? 0 : null } : null;
  }
  const first = c.read?.firstChunks.get(field.name);
  const chunks =
    first === undefined ? iterateChunks(db, c.id, field.name) : laterChunks(db, c.id, field.name, first);
  let scanned = 0;
  for (const chunk of chunks) {
    const analysis = analyzeText(chunk, field.clauses);
    // Chunks hold CHUNK_CHARS code points each, in order.
    if (analysis.matches) return { ...analysis, offset: scanned * CHUNK_CHARS };
    if (++scanned >= MAX_SNIPPET_CHUNKS) break;
  }
  // Beyond the scan budget, ask the index whether a term occurs in this field at all.
  const column = c.columns.find((g) => g.field === field.name)?.column;
  if (column === undefined) return null;
  // BETWEEN, not `rowid = ?`: FTS5 ignores an equality on rowid bound as a JS number (a double)
  // and answers for every matching row, which made other records' words count for this one.
  const hit = db
    .stmt(`SELECT 1 FROM ${c.table} WHERE ${c.table} MATCH ? AND rowid BETWEEN ? AND ?`)
    .get(anyClauseExpr(positiveClauses(field.clauses), column), c.id, c.id);
  return hit ? NO_SNIPPET : null;
}

/** A text field's chunks given its first: the rest are read only when the first holds no match. */
function* laterChunks(db: SqliteDb, recordRow: number, path: string, first: string): Generator<string> {
  yield first;
  const next = db
    .stmt(
      "SELECT text FROM text_chunks WHERE record_row = ? AND path = ? AND seq BETWEEN ? AND ? ORDER BY seq",
    )
    .pluck();
  // A few at a time: a caller that finds its match stops reading.
  for (let seq = 1; seq < MAX_SNIPPET_CHUNKS; seq += 4) {
    const batch = next.all(recordRow, path, seq, seq + 3) as string[];
    yield* batch;
    if (batch.length < 4) return;
  }
}

export type HitRow = Pick<
  RecordRow,
  "version" | "emitted_at" | "stamps" | "base_version" | "base_emitted_at"
> & {
  payload: string;
};

/**
 * One hit as its scope sees it. The record row read for the payload also gives the emitted_at the
 * scope observes (core/stamps.ts: an update of fields a projected scope cannot see moves nothing),
 * in the search's own snapshot.
 */
export function describeHit(db: SqliteDb, c: Candidate, clauses: SearchClause[]): StoredSearchHit {
  const row =
    c.read?.row ??
    (db
      .stmt(
        "SELECT payload, version, emitted_at, stamps, base_version, base_emitted_at FROM records WHERE id = ?",
      )
      .get(c.id) as HitRow);
  const payload = c.read?.payload ?? (JSON.parse(row.payload) as Record<string, unknown>);
  const texts = new Map<string, Analysis>();
  for (const { field } of c.columns) {
    const analysis = matchedText(db, c, { name: field, payload, clauses });
    if (analysis !== null) texts.set(field, analysis);
  }
  const matched = [...texts.keys()];
  const titleField = c.scope.stream.title_field;
  const ordered = [...matched.filter((f) => f !== titleField), ...matched.filter((f) => f === titleField)];
  let snippet: StoredSearchHit["snippet"] = null;
  for (const name of ordered) {
    const analysis = texts.get(name);
    const span = analysis?.span() ?? null;
    const text = span?.text ?? null;
    if (span !== null && text !== null) {
      const meta = isChunked(c, name) ? textMeta(db, c.id, name) : undefined;
      const whole = meta
        ? { sizeChars: meta.size_chars, digest: meta.digest }
        : windowMeta(getPath(payload, name));
      const offset = analysis?.offset ?? null;
      const range =
        offset === null ? {} : { startChars: offset + span.startChars, endChars: offset + span.endChars };
      if (whole) snippet = { field: name, text, ...whole, ...range };
      break;
    }
  }
  return {
    connectionId: c.connection_id,
    connectorKey: c.connector_key,
    stream: c.stream,
    recordId: c.record_id,
    time: c.time,
    emittedAt: observedStamp(row, c.scope).emittedAt,
    title: titleOf(db, c, payload),
    snippet,
    matchedFields: matched,
    score: c.score,
  };
}
