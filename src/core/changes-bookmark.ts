// What a changes_since bookmark holds, and why following it resumes exactly without revealing
// anything about writes the grant cannot see (issue 20 item 11; 20-rs-api.md "Resume is exact";
// 10-data-model.md "Noninterference").
//
// The grant's observed order. Every record the grant can see (tombstones included, its time range
// applied) sorts by the version it observes: the stored version for a grant that sees every field,
// else the newest of the record's base (its last creation, re-creation or deletion) and the stamps
// of the paths the grant sees (core/stamps.ts; a time-ranged grant also observes its time field).
// A version names one change of one record: each changing op of a batch draws its own, store-wide,
// in commit order (SQLite has one writer; Postgres draws them under the ingest lock, held to
// commit). So the order is total, and a change committed after a page was read takes a version
// above every version that page could have seen, whatever emitted_at it shares with others.
//
// What a bookmark holds: the observed version of the last change the page delivered (the one it
// was given, for an empty page; 0 from `beginning`), sealed with AES-256-GCM (core/cursor.ts). A
// page after it is the visible changes whose observed version is above it. Nothing is re-found.
//
// Why that is exact. Let B be the bookmark's version. Every change delivered up to the bookmark
// was at or below B when delivered. A record still observed at or below B has not changed visibly
// since (a change to a path the grant sees, a deletion, a re-creation, a move into its time range:
// each stamps a new version, above B), so the client holds its current state and it does not come
// again. A record that changed visibly since is above B and comes once, in its state at read time
// (changes between two reads coalesce into the newest). Whatever became of the last record read
// (deleted, updated, moved out of range, its connection deleted) changes nothing: it is not looked
// up. The old bookmark held that record as the client saw it (connection, id, emitted_at, tombstone
// flag) and re-found it; once it had changed, "resume after every visible change older than its
// emitted_at" replayed its whole batch (a bulk import stamps a batch with one emitted_at), and a
// record rewritten within the same millisecond resumed after its new version, skipping what lay
// between.
//
// Why a sealed version and not a visible anchor. No bookmark made of visible values alone can be
// exact. Let one batch write a then b, and two more rewrite a and rewrite it back, all within one
// millisecond. Client X read a page of one (a) between the first batch and the others; client Y
// read everything after them (b, then a). The store is the same for both, and both last saw a with
// the same data and emitted_at, so a bookmark of visible values is the same for both; yet X must
// now receive b and a, and Y nothing.
//
// Why it reveals nothing about hidden writes. (1) The observed version of a visible record never
// moves with a hidden write: a record of a hidden connection or stream, or outside the time range,
// is another row; an update of hidden fields only stamps paths the grant does not see. Hidden writes
// only insert versions between visible ones; they never add, remove or reorder a visible change, so
// what follows a bookmark, and in which order, is a function of the visible history. (2) B itself
// counts every write of the store, so a bookmark's bytes differ between stores that differ only in
// hidden writes; sealed, a client learns from them only their length, which is fixed (B is written
// as 16 hex digits), and whether two bookmarks are equal (the cipher's IV is synthetic), which they
// are exactly when they mark the same visible change of the same grant, stream and connection
// filter. The noninterference test compares bookmarks by exactly that, and follows each in its own
// world (test/reliability/noninterference.test.ts).
//
// Bookmarks from before this change (payload `a`: the anchor tuple, or null from an empty feed)
// are accepted and resume at least once: after every visible change observed before the anchor's
// emitted_at (Store.changesPositionBefore), so what the client had from the anchor's batch on comes
// again (a sync client applies upserts and tombstones idempotently) and nothing is skipped while the
// server's clock does not step back. The next bookmark is exact. Refusing them would cost each
// client a full re-read instead of one batch.
import { malformedCursor } from "./cursor.js";

/** Where a verified bookmark resumes. */
export type BookmarkPosition =
  | { kind: "version"; version: number }
  /** An old bookmark: resume before every visible change observed at or after `emittedAt`. */
  | { kind: "before"; emittedAt: string };

const WIDTH = 16;

/** The sealed payload of a bookmark at `version` (fixed length: `version` as 16 hex digits). */
export function bookmarkPayload(fingerprint: string, version: number): Record<string, unknown> {
  if (!Number.isSafeInteger(version) || version < 0) throw new Error(`bad changes position ${version}`);
  return { k: "chg", f: fingerprint, p: version.toString(16).padStart(WIDTH, "0") };
}

/** The position a verified, bound bookmark payload holds (either format). */
export function bookmarkPosition(payload: Record<string, unknown>): BookmarkPosition {
  const p = payload.p;
  if (typeof p === "string") {
    const version = /^[0-9a-f]{16}$/.test(p) ? Number.parseInt(p, 16) : Number.NaN;
    if (!Number.isSafeInteger(version)) throw malformedCursor("changes_since");
    return { kind: "version", version };
  }
  if (!("a" in payload)) throw malformedCursor("changes_since");
  const a = payload.a;
  if (a === null) return { kind: "version", version: 0 };
  if (!Array.isArray(a) || a.length !== 4) throw malformedCursor("changes_since");
  const [connectionId, recordId, emittedAt, deleted] = a as unknown[];
  if (
    typeof connectionId !== "string" ||
    typeof recordId !== "string" ||
    typeof emittedAt !== "string" ||
    typeof deleted !== "boolean"
  ) {
    throw malformedCursor("changes_since");
  }
  return { kind: "before", emittedAt };
}
