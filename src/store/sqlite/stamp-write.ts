// Change stamps on SQLite ingest (see core/stamps.ts): before an update replaces a live row, diff
// its stored payload against the new one and record [version, emitted_at] on the changed paths.
// Text fields live in chunks, not in the payload JSON; both sides put each text's digest at its
// path, so a text compares by content without reading a chunk.
import { fastSha256Digest } from "../../core/canonical-json.js";
import { getPath, setPath } from "../../core/projection.js";
import { addStamps, diffPaths, parseStamps } from "../../core/stamps.js";
import type { SqliteDb } from "./db.js";

interface OldRow {
  payload: string;
  version: number;
  emitted_at: string;
  stamps: string | null;
  base_version: number | null;
  base_emitted_at: string | null;
  stream: string;
}

/** Stamp the paths an update changes; call before the row's payload and texts are replaced. */
export function updateStamps(
  db: SqliteDb,
  update: {
    row: number;
    op: { payloadJson: string; texts: { path: string; text: string }[] };
    version: number;
    emittedAt: string;
  },
): void {
  const old = db
    .stmt(
      "SELECT payload, version, emitted_at, stamps, base_version, base_emitted_at, stream FROM records WHERE id = ?",
    )
    .get(update.row) as OldRow;
  const before = JSON.parse(old.payload) as Record<string, unknown>;
  const texts = db.stmt("SELECT path, digest FROM text_fields WHERE record_row = ?").all(update.row) as {
    path: string;
    digest: string;
  }[];
  // A chunked path may still be inline in a row stored before its field moved to chunks.
  for (const t of update.op.texts) {
    const inline = getPath(before, t.path);
    if (typeof inline === "string") setPath(before, t.path, fastSha256Digest(inline));
  }
  for (const t of texts) setPath(before, t.path, t.digest);
  const after = JSON.parse(update.op.payloadJson) as Record<string, unknown>;
  for (const t of update.op.texts) setPath(after, t.path, fastSha256Digest(t.text));
  const paths = diffPaths(before, after);
  // No stamps yet: the row's current version and emitted_at are its base.
  const stamps = addStamps(parseStamps(old.stamps), paths, update.version, update.emittedAt);
  db.stmt("UPDATE records SET stamps = ?, base_version = ?, base_emitted_at = ? WHERE id = ?").run(
    JSON.stringify(stamps),
    old.base_version ?? old.version,
    old.base_emitted_at ?? old.emitted_at,
    update.row,
  );
  if (paths.length > 0) {
    // The versions the row's stamps still hold, as events a changes page can find by version.
    clearStampEvents(db, update.row);
    const insert = db.stmt("INSERT INTO stamp_events (version, record_row, stream) VALUES (?, ?, ?)");
    for (const v of new Set(Object.values(stamps).map(([version]) => version)))
      insert.run(v, update.row, old.stream);
  }
}

/** Forget a row's stamp events (its stamps were reset, or are about to be rewritten). */
export function clearStampEvents(db: SqliteDb, row: number): void {
  db.stmt("DELETE FROM stamp_events WHERE record_row = ?").run(row);
}
