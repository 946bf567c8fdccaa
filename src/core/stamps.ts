// Field-path change stamps: what a grant that projects fields may learn about when a record last
// changed (10-data-model.md, Noninterference; issue 8). A record keeps the version and emitted_at
// of its last creation, recreation or deletion (its "base") and, for updates since then, the
// newest [version, emitted_at] per changed path. A scope sees the newest stamp on a path it can
// see, else the base: an update of hidden fields only moves nothing it observes.
//
// Exactness. A stamp at K is visible to a grant path P when K == P or K lies under P. diffPaths
// stamps every path whose value differs and, where an object meets a non-object (or nothing), also
// every path inside the object side; so for any P, the projected value at P (getPath) differs
// between two payloads exactly when some stamp lies at or under P. A stamp at an ancestor of P
// alone never reveals anything to P: a scalar at K is not readable through K.x.
import type { StreamScope } from "./grant.js";

/** Path → [version, emitted_at] of the newest update that changed it since the base. */
export type Stamps = Record<string, [number, string]>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function sameLeaf(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameLeaf(x, b[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  const ob = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(ob, k) && sameLeaf((a as Record<string, unknown>)[k], ob[k]));
}

function diffInto(a: unknown, b: unknown, path: string, out: string[]): void {
  const objA = isPlainObject(a);
  const objB = isPlainObject(b);
  if (objA && objB) {
    for (const key of Object.keys(a))
      diffInto(a[key], Object.hasOwn(b, key) ? b[key] : undefined, `${path}.${key}`, out);
    for (const key of Object.keys(b))
      if (!Object.hasOwn(a, key)) diffInto(undefined, b[key], `${path}.${key}`, out);
    return;
  }
  if (!objA && !objB && sameLeaf(a, b)) return;
  out.push(path);
  // An object on one side only: everything inside it changed too (readable by deeper grants).
  if (objA) for (const key of Object.keys(a)) diffInto(a[key], undefined, `${path}.${key}`, out);
  if (objB) for (const key of Object.keys(b)) diffInto(undefined, b[key], `${path}.${key}`, out);
}

/**
 * The dotted paths whose values differ between two payloads (objects recurse; arrays and scalars
 * are leaves; absent differs from null). Empty when the payloads are equal.
 */
export function diffPaths(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(before))
    diffInto(before[key], Object.hasOwn(after, key) ? after[key] : undefined, key, out);
  for (const key of Object.keys(after))
    if (!Object.hasOwn(before, key)) diffInto(undefined, after[key], key, out);
  return out;
}

/** `stamps` with `paths` stamped at [version, emittedAt] (newest per path; a new object). */
export function addStamps(
  stamps: Stamps | null,
  paths: string[],
  version: number,
  emittedAt: string,
): Stamps {
  const next: Stamps = { ...(stamps ?? {}) };
  for (const path of paths) next[path] = [version, emittedAt];
  return next;
}

/**
 * The paths whose changes a scope may observe, or null for everything (fields "all"). Granted
 * fields and the primary key are shown; the time_field also counts when the scope has a time
 * bound, since changing it moves the record in or out of the scope (a visible appearance that must
 * carry a visible version, or the changes feed would place it behind the client's position).
 */
export function observedPaths(scope: StreamScope): string[] | null {
  if (scope.fields === "all") return null;
  const paths = [...scope.fields, ...scope.stream.primary_key];
  const timeField = scope.stream.time_field;
  if (timeField && (scope.since || scope.until)) paths.push(timeField);
  return [...new Set(paths)];
}

/** True when a stamp at `key` is visible through one of `paths` (at or under it). */
export function stampVisible(key: string, paths: readonly string[]): boolean {
  return paths.some(
    (p) => key === p || (key.length > p.length && key.startsWith(p) && key[p.length] === "."),
  );
}

export interface StampedRow {
  version: number;
  emittedAt: string;
  /** Null when the record has had no update since its base (then base = version/emittedAt). */
  baseVersion: number | null;
  baseEmittedAt: string | null;
  stamps: Stamps | null;
}

/** The (version, emitted_at) of a record as a scope observing `paths` (null = all) sees it. */
export function visibleStamp(
  row: StampedRow,
  paths: readonly string[] | null,
): { version: number; emittedAt: string } {
  if (paths === null || row.stamps === null || row.baseVersion === null || row.baseEmittedAt === null) {
    return { version: row.version, emittedAt: row.emittedAt };
  }
  let version = row.baseVersion;
  let emittedAt = row.baseEmittedAt;
  for (const [key, [v, at]] of Object.entries(row.stamps)) {
    if (v > version && stampVisible(key, paths)) {
      version = v;
      emittedAt = at;
    }
  }
  return { version, emittedAt };
}

/** Parse a stored stamps column (JSON text on SQLite, already parsed jsonb on Postgres). */
export function parseStamps(value: unknown): Stamps | null {
  if (value === null || value === undefined) return null;
  return (typeof value === "string" ? JSON.parse(value) : value) as Stamps;
}
