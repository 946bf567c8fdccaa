// readFieldWindow on Postgres: windows of chunked text fields touch at most two chunks; a `q`
// window finds its chunk in SQL (text-match.ts). Other values are windowed in memory (non-strings as
// their canonical JSON).
import type pg from "pg";
import { windowText } from "../../core/canonical-json.js";
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import { isFieldPath, sha256Digest } from "../../core/ids.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import { setPath } from "../../core/projection.js";
import { codePointLength, findFirstMatch, sliceCodePoints, windowSpan } from "../../core/text-chunks.js";
import type { FieldWindow, WindowSelector } from "../store.js";
import { Params, requireGranted, scopeClause } from "./sql-scope.js";
import { findInStoredText } from "./text-match.js";
import { readTextPrefixes, readTextRange } from "./text-store.js";

interface WindowRow {
  rid: string;
  value: unknown;
  size_chars: string | null;
  digest: string | null;
  chunk_count: number | null;
}

function notText(path: string): PdppError {
  return new PdppError("field_not_text", `field ${path} has no value on this record.`, {
    param: "field",
  });
}

export async function readFieldWindow(
  pool: pg.Pool,
  scope: StreamScope,
  ref: { connectionId: string; recordId: string; path: string; selector: WindowSelector },
): Promise<FieldWindow | null> {
  const { path, selector } = ref;
  requireGranted(scope, path);
  if (!isFieldPath(path))
    throw new PdppError("invalid_filter", `${JSON.stringify(path)} is not a field path.`);
  if (!scope.connectionIds.includes(ref.connectionId)) return null;
  const params = new Params();
  const pathParam = params.add(path);
  const { rows } = await pool.query<WindowRow>(
    `SELECT r.rid, r.payload #> string_to_array(${pathParam}, '.') AS value, f.size_chars, f.digest, f.chunk_count
     FROM records r LEFT JOIN text_fields f ON f.rid = r.rid AND f.path = ${pathParam}
     WHERE ${scopeClause(params, scope)} AND r.connection_id = ${params.add(ref.connectionId)}
       AND r.record_id = ${params.add(ref.recordId)}`,
    params.values,
  );
  const row = rows[0];
  if (!row) return null;
  const schema = fieldSchemaAt(scope.stream, path);
  const textLike = (scope.stream.text_fields ?? []).includes(path);
  const base = { textLike, ...(schema?.contentMediaType ? { mimeType: schema.contentMediaType } : {}) };

  if (row.size_chars !== null && row.digest !== null) {
    const sizeChars = Number(row.size_chars);
    const match =
      selector.kind === "match"
        ? await findInStoredText(pool, { rid: row.rid, path, chunkCount: row.chunk_count ?? 0 }, selector.q)
        : null;
    const span = windowSpan(selector, sizeChars, match);
    const text = await readTextRange(pool, { rid: row.rid, path }, span);
    return {
      ...base,
      sizeChars,
      digest: row.digest,
      text,
      startChars: span.start,
      endChars: span.end,
      match,
    };
  }
  // Text fields under this path live in text_chunks, not the payload: put them back so the JSON
  // is the whole stored value (what fetch and previews show for it).
  const children = (scope.stream.text_fields ?? []).filter((t) => t.startsWith(`${path}.`));
  if (
    children.length > 0 &&
    row.value !== null &&
    typeof row.value === "object" &&
    !Array.isArray(row.value)
  ) {
    const texts = (await readTextPrefixes(pool, [row.rid], { paths: children })).get(row.rid);
    for (const [child, t] of texts ?? []) {
      setPath(row.value as Record<string, unknown>, child.slice(path.length + 1), t.text);
    }
  }
  const found = windowText(row.value);
  if (found === null) throw notText(path);
  const value = found.text;
  const sizeChars = codePointLength(value);
  const match = selector.kind === "match" ? findFirstMatch([value], selector.q) : null;
  const span = windowSpan(selector, sizeChars, match);
  return {
    // A non-string value reads as its canonical JSON text (issue 9 item 3).
    ...(found.json ? { textLike: false, mimeType: "application/json" } : base),
    sizeChars,
    digest: sha256Digest(value),
    text: sliceCodePoints(value, span.start, span.end),
    startChars: span.start,
    endChars: span.end,
    match,
  };
}
