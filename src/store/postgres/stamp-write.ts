// Change stamps on Postgres ingest (see core/stamps.ts). A batch is replayed op by op; each update
// of a live record stamps the paths it changes with that op's version, exactly as SQLite does op
// by op, so both stores order a projected grant's changes feed alike. Text fields live in chunks,
// not in the payload; both sides of a diff put each text's digest at its path.
import type pg from "pg";
import { sha256Digest } from "../../core/ids.js";
import { getPath, setPath } from "../../core/projection.js";
import { addStamps, diffPaths, parseStamps, type Stamps } from "../../core/stamps.js";

/** One change the replay applied to a record: an update of a live row, or a (re)creation/delete. */
export interface StampChange {
  kind: "update" | "reset";
  slot: number;
  data: Record<string, unknown> | null; // the upsert's payload; null for a delete
}

/** What a records row stores about its stamps. */
export interface StampColumns {
  stamps: Stamps | null;
  baseVersion: number | null;
  baseEmittedAt: string | null;
}

interface OldState {
  payload: Record<string, unknown>;
  texts: Record<string, string> | null;
  version: string;
  emitted_at: string;
  stamps: Stamps | null;
  base_version: string | null;
  base_emitted_at: string | null;
}

/** The stored state of rows whose first change in the batch is an update (one query). */
export async function loadOldStates(client: pg.PoolClient, rids: string[]): Promise<Map<string, OldState>> {
  if (rids.length === 0) return new Map();
  const { rows } = await client.query<OldState & { rid: string }>(
    `SELECT r.rid, r.payload, r.version, r.emitted_at, r.stamps, r.base_version, r.base_emitted_at,
            (SELECT jsonb_object_agg(t.path, t.digest) FROM text_fields t WHERE t.rid = r.rid) AS texts
     FROM records r WHERE r.rid = ANY($1::bigint[])`,
    [rids],
  );
  return new Map(rows.map((r) => [r.rid, r]));
}

function normalized(data: Record<string, unknown>, textPaths: string[]): Record<string, unknown> {
  if (textPaths.length === 0) return data;
  let out = data;
  for (const path of textPaths) {
    const value = getPath(data, path);
    if (typeof value !== "string") continue;
    if (out === data) out = structuredClone(data);
    setPath(out, path, sha256Digest(value));
  }
  return out;
}

/** The stamp columns a record ends the batch with, from its stored state and its changes. */
export function finalStamps(options: {
  old: OldState | undefined;
  changes: StampChange[];
  versionOf: (slot: number) => number;
  emittedAt: string;
  textPaths: string[];
}): StampColumns {
  const { old, versionOf, emittedAt, textPaths } = options;
  let stamps: Stamps | null = null;
  let base: [number, string] | null = null;
  let previous: Record<string, unknown> | null = null;
  if (old) {
    stamps = old.stamps === null ? null : parseStamps(old.stamps);
    base = [Number(old.base_version ?? old.version), old.base_emitted_at ?? old.emitted_at];
    // A chunked path may still be inline in a row stored before its field moved to chunks.
    previous = { ...normalized(old.payload, textPaths) };
    for (const [path, digest] of Object.entries(old.texts ?? {})) setPath(previous, path, digest);
  }
  for (const change of options.changes) {
    const version = versionOf(change.slot);
    const next = change.data && normalized(change.data, textPaths);
    if (change.kind === "reset" || previous === null || next === null) {
      stamps = null;
      base = [version, emittedAt];
    } else {
      stamps = addStamps(stamps, diffPaths(previous, next), version, emittedAt);
    }
    previous = next;
  }
  // Without stamps the row's own version and emitted_at are its base.
  if (stamps === null || base === null) return { stamps: null, baseVersion: null, baseEmittedAt: null };
  return { stamps, baseVersion: base[0], baseEmittedAt: base[1] };
}

/**
 * Replace the stamp events of the rows a batch wrote: one per distinct version their stamps hold
 * (none for a row without stamps), so a changes page finds updated rows by version (reads.ts).
 */
export async function writeStampEvents(
  client: pg.PoolClient,
  batch: { stream: string; rows: { rid: string; stamps: Stamps | null }[] },
): Promise<void> {
  if (batch.rows.length === 0) return;
  await client.query("DELETE FROM stamp_events WHERE rid = ANY($1::bigint[])", [
    batch.rows.map((r) => r.rid),
  ]);
  const versions: number[] = [];
  const rids: string[] = [];
  for (const row of batch.rows) {
    if (row.stamps === null) continue;
    for (const v of new Set(Object.values(row.stamps).map(([version]) => version))) {
      versions.push(v);
      rids.push(row.rid);
    }
  }
  if (versions.length === 0) return;
  await client.query(
    `INSERT INTO stamp_events (version, rid, stream)
     SELECT v, r, $3 FROM unnest($1::bigint[], $2::bigint[]) AS t(v, r)`,
    [versions, rids, batch.stream],
  );
}
