// The chosen search candidates as core/search-ranking.ts scores them: each record's keys and, per
// granted search field of its scope, the text (a payload value, or a text field's first chunk) with
// the field's ranking weight. One statement for the rows, one per chunked field.
import { type StreamScope, scopeGrantsTime } from "../../core/grant.js";
import { getPath } from "../../core/projection.js";
import { searchableText } from "../../core/search-analysis.js";
import { type CandidateDoc, fieldWeight } from "../../core/search-ranking.js";
import type { SqliteDb } from "./db.js";
import { scopeByConnection } from "./scope-sql.js";
import { type Candidate, grantedColumns } from "./search-hits.js";
import { searchTable } from "./search-tables.js";

interface Row {
  id: number;
  connection_id: string;
  connector_key: string;
  stream: string;
  record_id: string;
  time: string | null;
  payload: string;
  version: number;
  emitted_at: string;
  stamps: string | null;
  base_version: number | null;
  base_emitted_at: string | null;
}

export type ScoredDoc = CandidateDoc & { candidate: Candidate };

/** Candidates of the given record rows (in that order; a row no scope sees is left out). */
export function candidateDocs(db: SqliteDb, scopes: StreamScope[], ids: number[]): ScoredDoc[] {
  if (ids.length === 0) return [];
  const rows = db
    .stmt(
      `SELECT id, connection_id, connector_key, stream, record_id, time, payload,
              version, emitted_at, stamps, base_version, base_emitted_at FROM records
       WHERE id IN (SELECT value FROM json_each(?)) AND deleted = 0`,
    )
    .all(JSON.stringify(ids)) as Row[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const scopeOf = scopeByConnection(scopes);
  // First chunks of the candidates' text fields, in one statement (one per candidate cost more):
  // a text's text_fields row holds it when it is one chunk (text-store.ts), else chunk 0 does.
  const chunks = new Map<string, string>();
  const textPaths = [...new Set(scopes.flatMap((s) => s.stream.text_fields ?? []))];
  if (textPaths.length > 0) {
    const rows = db
      .stmt(
        `SELECT f.record_row, f.path, coalesce(f.text, (SELECT c.text FROM text_chunks c
           WHERE c.record_row = f.record_row AND c.path = f.path AND c.seq = 0)) AS text
         FROM text_fields f
         WHERE f.record_row IN (SELECT value FROM json_each(?)) AND f.path IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids), JSON.stringify(textPaths)) as {
      record_row: number;
      path: string;
      text: string | null;
    }[];
    for (const r of rows) if (r.text !== null) chunks.set(`${r.record_row}\u0000${r.path}`, r.text);
  }
  // Per scope: its stream's table and the granted columns in it.
  const layouts = new Map<StreamScope, { name: string; columns: Candidate["columns"] } | null>();
  const out: ScoredDoc[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    const scope = row && scopeOf.get(`${row.connection_id}\u0000${row.stream}`);
    if (!row || !scope || scope.connectorKey !== row.connector_key) continue;
    if (!layouts.has(scope)) {
      const info = searchTable(db, scope.connectorKey, scope.stream.name);
      layouts.set(scope, info && { name: info.name, columns: grantedColumns(scope, info) });
    }
    const layout = layouts.get(scope);
    if (!layout) continue;
    const { columns } = layout;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    const textFields = scope.stream.text_fields ?? [];
    const firstChunks = new Map<string, string>();
    const fields = columns.map(({ field }) => {
      const chunk = textFields.includes(field) ? chunks.get(`${id}\u0000${field}`) : undefined;
      if (chunk !== undefined) firstChunks.set(field, chunk);
      return {
        text: chunk ?? searchableText(getPath(payload, field)),
        weight: fieldWeight(scope.stream, field),
      };
    });
    out.push({
      id,
      fields,
      candidate: {
        id,
        connection_id: row.connection_id,
        connector_key: row.connector_key,
        stream: row.stream,
        record_id: row.record_id,
        // Ties are broken by time only where the grant shows it.
        time: scopeGrantsTime(scope) ? row.time : null,
        score: 0,
        scope,
        table: layout.name,
        columns,
        // What describing the hit reads again otherwise: the row, its payload and first chunks.
        read: { row, payload, firstChunks },
      },
    });
  }
  return out;
}
