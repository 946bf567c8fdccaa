// Grant projection of payloads: (granted ∩ requested) ∪ primary key, with dotted paths for nested objects.

export interface ProjectionOptions {
  granted: string[] | "all";
  requested?: string[];
  primaryKey: string[];
}

function isPrefixPath(prefix: string, path: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`);
}

/** A path is granted when it, or an ancestor of it, is granted. */
export function isPathGranted(path: string, granted: string[] | "all"): boolean {
  if (granted === "all") return true;
  return granted.some((g) => isPrefixPath(g, path));
}

/**
 * The paths a projection keeps: requested paths that are granted, plus granted descendants of
 * requested paths (asking for `sender` with only `sender.email` granted yields `sender.email`),
 * plus the primary key. Null means "everything".
 */
export function projectionPaths(options: ProjectionOptions): string[] | null {
  const { granted, requested, primaryKey } = options;
  if (granted === "all" && requested === undefined) return null;
  let paths: string[];
  if (requested === undefined) paths = [...(granted as string[])];
  else if (granted === "all") paths = [...requested];
  else {
    paths = [];
    for (const r of requested) {
      if (isPathGranted(r, granted)) paths.push(r);
      else paths.push(...granted.filter((g) => isPrefixPath(r, g)));
    }
  }
  paths.push(...primaryKey);
  // Drop paths covered by an ancestor already in the set.
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && isPrefixPath(q, p)));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The value at a dotted path, or undefined when any step is missing or not an object. */
export function getPath(data: unknown, path: string): unknown {
  // A top-level field (the common case) without splitting the path: the same answer, fewer allocations.
  if (!path.includes(".")) return isPlainObject(data) && Object.hasOwn(data, path) ? data[path] : undefined;
  let current: unknown = data;
  for (const segment of path.split(".")) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Set a value at a dotted path, creating intermediate objects. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split(".");
  let current = target;
  for (const segment of segments.slice(0, -1)) {
    const next = current[segment];
    if (!isPlainObject(next)) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[segments[segments.length - 1]] = value;
}

/** Remove the value at a dotted path (no-op when absent). */
export function deletePath(target: Record<string, unknown>, path: string): void {
  const segments = path.split(".");
  const holder = segments.length === 1 ? target : getPath(target, segments.slice(0, -1).join("."));
  if (isPlainObject(holder)) delete holder[segments[segments.length - 1]];
}

/** Project a payload to the visible paths. Absent paths stay absent. */
export function projectData(
  data: Record<string, unknown>,
  options: ProjectionOptions,
): Record<string, unknown> {
  const paths = projectionPaths(options);
  if (paths === null) return { ...data };
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const value = getPath(data, path);
    if (value !== undefined) setPath(out, path, value);
  }
  return out;
}
