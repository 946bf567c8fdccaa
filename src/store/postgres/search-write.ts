// Writes the Postgres search rows of records (per-field segment vectors in search_docs, one lexeme
// row in search_lex, and the per-term row counts of search_df that every change to search_lex
// keeps exact in its transaction), and re-indexes a stream when a manifest changes its search
// fields — inside the manifest's own transaction, so no read sees the new manifest over old rows.
import type pg from "pg";
import type { Manifest, StreamDef } from "../../core/manifest.js";
import { getPath, setPath } from "../../core/projection.js";
import { searchableText } from "../../core/search-analysis.js";
import { lexemeParts, type SearchRow, searchRowsFor, taggedLexeme } from "./search-index.js";
import { MAX_SEARCH_FIELDS } from "./search-sql.js";

const BATCH = 2000;
/** Terms per search_df upsert. */
const DF_BATCH = 10_000;

/** The search-field list rows are indexed under (the first 16 declared). */
export function searchFieldsOf(def: StreamDef | undefined): string[] {
  return (def?.query?.search ?? []).slice(0, MAX_SEARCH_FIELDS);
}

/** A stream's search fields in the stored manifest (read under the ingest lock, so never stale). */
export async function currentSearchFields(
  client: pg.PoolClient,
  target: { connectorKey: string; stream: string },
): Promise<string[]> {
  const { rows } = await client.query<{ body: string }>(
    "SELECT body FROM manifests WHERE connector_key = $1",
    [target.connectorKey],
  );
  const manifest = rows[0] ? (JSON.parse(rows[0].body) as Manifest) : null;
  return searchFieldsOf(manifest?.streams.find((s) => s.name === target.stream));
}

interface LexRow {
  rid: string;
  part: number;
  parts: number;
  tsv: string;
}

/** Search rows of records of one connection and stream (rids whose old rows are already gone). */
export async function writeSearchRows(
  client: pg.PoolClient,
  target: { stream: string; connectionId: string; fields: string[] },
  records: { rid: string; data: Record<string, unknown> }[],
  /** False only before migration 15 made search_df (migration 14's re-index). */
  counted = true,
): Promise<void> {
  const searchRows: (SearchRow & { rid: string })[] = [];
  const lexRows: LexRow[] = [];
  const termCounts = new Map<string, number>();
  for (const { rid, data } of records) {
    const lexemes = new Set<string>();
    for (const field of target.fields) {
      const words = new Set<string>();
      for (const row of searchRowsFor(field, searchableText(getPath(data, field)), words))
        searchRows.push({ ...row, rid });
      for (const word of words) {
        const tagged = taggedLexeme(field, word);
        if (tagged !== null) lexemes.add(tagged);
      }
    }
    for (const lexeme of lexemes) termCounts.set(lexeme, (termCounts.get(lexeme) ?? 0) + 1);
    const parts = lexemeParts(lexemes);
    parts.forEach((tsv, part) => {
      lexRows.push({ rid, part, parts: parts.length, tsv });
    });
  }
  for (let i = 0; i < searchRows.length; i += BATCH) {
    const slice = searchRows.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO search_docs (rid, field, seg, tsv)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::tsvector[])`,
      [slice.map((r) => r.rid), slice.map((r) => r.field), slice.map((r) => r.seg), slice.map((r) => r.tsv)],
    );
  }
  for (let i = 0; i < lexRows.length; i += BATCH) {
    const slice = lexRows.slice(i, i + BATCH);
    await client.query(
      // record_id and time come from the records row this transaction just wrote, so the lexeme
      // row can order a search window by itself (migration 7) and never disagrees with it.
      `INSERT INTO search_lex (rid, part, parts, stream, connection_id, record_id, time, tsv)
       SELECT t.rid, t.part, t.parts, $5, $6, r.record_id, r.time, t.tsv
       FROM unnest($1::bigint[], $2::int[], $3::int[], $4::tsvector[]) AS t(rid, part, parts, tsv)
       JOIN records r ON r.rid = t.rid`,
      [
        slice.map((r) => r.rid),
        slice.map((r) => r.part),
        slice.map((r) => r.parts),
        slice.map((r) => r.tsv),
        target.stream,
        target.connectionId,
      ],
    );
  }
  if (counted) await addTermCounts(client, target, termCounts);
}

/** Adds the lexeme rows just written to search_df (terms sorted: one lock order for every writer). */
async function addTermCounts(
  client: pg.PoolClient,
  target: { stream: string; connectionId: string },
  counts: Map<string, number>,
): Promise<void> {
  const terms = [...counts.keys()].sort();
  for (let i = 0; i < terms.length; i += DF_BATCH) {
    const slice = terms.slice(i, i + DF_BATCH);
    await client.query(
      `INSERT INTO search_df (stream, lexeme, connection_id, n)
       SELECT $1, t.lexeme, $2, t.n FROM unnest($3::text[], $4::bigint[]) AS t(lexeme, n)
       ON CONFLICT (stream, lexeme, connection_id) DO UPDATE SET n = search_df.n + excluded.n`,
      [target.stream, target.connectionId, slice, slice.map((t) => counts.get(t))],
    );
  }
}

/**
 * Deletes the lexeme rows of `rids` (one stream: the stream names the partition, migration 11)
 * and takes their terms off search_df in the same statement.
 */
export async function deleteLexRows(client: pg.PoolClient, stream: string, rids: string[]): Promise<void> {
  await client.query(
    `WITH gone AS (DELETE FROM search_lex WHERE stream = $2 AND rid = ANY($1::bigint[]) RETURNING connection_id, tsv),
     counts AS (SELECT u.lexeme, g.connection_id, count(*) AS n
                FROM gone g CROSS JOIN LATERAL unnest(g.tsv) u GROUP BY u.lexeme, g.connection_id)
     UPDATE search_df d SET n = d.n - c.n FROM counts c
     WHERE d.stream = $2 AND d.lexeme = c.lexeme AND d.connection_id = c.connection_id`,
    [rids, stream],
  );
}

/**
 * Re-index every stream of `next` (and of `previous`) whose search-field list changed: its rows'
 * search rows are dropped and rebuilt from the stored payloads and text chunks. Call inside the
 * transaction that stores `next`, holding the ingest lock.
 */
export async function reindexChangedStreams(
  client: pg.PoolClient,
  change: { previous: Manifest | null; next: Manifest },
): Promise<void> {
  const names = new Set([...change.next.streams, ...(change.previous?.streams ?? [])].map((s) => s.name));
  for (const name of names) {
    const before = searchFieldsOf(change.previous?.streams.find((s) => s.name === name));
    const after = searchFieldsOf(change.next.streams.find((s) => s.name === name));
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    await reindexStream(client, { connectorKey: change.next.connector_key, stream: name, fields: after });
  }
}

/**
 * Migration 14: every stream of every stored manifest indexed again (analysed terms). It runs
 * before migration 15 made search_df, which then counts the rows written here.
 */
export async function reindexAllStreams(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ body: string }>("SELECT body FROM manifests ORDER BY connector_key");
  for (const row of rows) {
    const manifest = JSON.parse(row.body) as Manifest;
    for (const s of manifest.streams) {
      const fields = searchFieldsOf(s);
      if (fields.length > 0)
        await reindexStream(client, { connectorKey: manifest.connector_key, stream: s.name, fields }, false);
    }
  }
}

async function reindexStream(
  client: pg.PoolClient,
  target: { connectorKey: string; stream: string; fields: string[] },
  counted = true,
): Promise<void> {
  const { rows: conns } = await client.query<{ connection_id: string }>(
    "SELECT connection_id FROM connections WHERE connector_key = $1 ORDER BY connection_id",
    [target.connectorKey],
  );
  const connections = conns.map((c) => c.connection_id);
  await client.query(
    `DELETE FROM search_docs d USING records r
     WHERE d.rid = r.rid AND r.stream = $1 AND r.connection_id = ANY($2::text[])`,
    [target.stream, connections],
  );
  await client.query("DELETE FROM search_lex WHERE stream = $1 AND connection_id = ANY($2::text[])", [
    target.stream,
    connections,
  ]);
  if (counted)
    await client.query("DELETE FROM search_df WHERE stream = $1 AND connection_id = ANY($2::text[])", [
      target.stream,
      connections,
    ]);
  if (target.fields.length === 0) return;
  for (const connectionId of connections) {
    let last = "0";
    for (;;) {
      const { rows } = await client.query<{ rid: string; payload: Record<string, unknown> }>(
        `SELECT rid, payload FROM records WHERE connection_id = $1 AND stream = $2 AND NOT deleted AND rid > $3
         ORDER BY rid LIMIT ${BATCH}`,
        [connectionId, target.stream, last],
      );
      if (rows.length === 0) break;
      last = rows[rows.length - 1].rid;
      const { rows: texts } = await client.query<{ rid: string; path: string; text: string }>(
        `SELECT rid, path, string_agg(body, '' ORDER BY seq) AS text FROM text_chunks
         WHERE rid = ANY($1::bigint[]) AND path = ANY($2::text[]) GROUP BY rid, path`,
        [rows.map((r) => r.rid), target.fields],
      );
      const byRid = new Map(rows.map((r) => [r.rid, r.payload]));
      for (const t of texts) {
        const data = byRid.get(t.rid);
        if (data) setPath(data, t.path, t.text);
      }
      await writeSearchRows(
        client,
        { stream: target.stream, connectionId, fields: target.fields },
        rows.map((r) => ({ rid: r.rid, data: r.payload })),
        counted,
      );
    }
  }
}
