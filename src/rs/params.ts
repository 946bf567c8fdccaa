// Query-string helpers for routes: single/int/enum/list parameters, the clamped page limit,
// unknown-parameter rejection and the repeated-parameter limit. Every failure is a typed 4xx
// naming the parameter.
import { invalidRequest, PdppError } from "../core/errors.js";
import { isFilterKey } from "../core/filters.js";
import type { Warning } from "../core/wire.js";

export const MAX_REPEATED_PARAMS = 64;
export const MAX_URL_CHARS = 16 * 1024;

/** A parsed query string with typed accessors. */
export class Params {
  readonly search: URLSearchParams;

  constructor(url: string) {
    this.search = new URL(url).searchParams;
  }

  entries(): [string, string][] {
    return [...this.search.entries()];
  }

  /** Reject parameters this endpoint does not know (typos fail loudly instead of being ignored). */
  allowOnly(names: readonly string[], options: { filter?: boolean } = {}): void {
    for (const key of new Set(this.search.keys())) {
      if (names.includes(key)) continue;
      if (options.filter && isFilterKey(key)) continue;
      if (isFilterKey(key)) throw invalidRequest("this endpoint takes no filter parameters.", "filter");
      throw invalidRequest(
        `unknown parameter ${JSON.stringify(key.slice(0, 64))}; allowed: ${names.join(", ")}.`,
        key.slice(0, 64),
      );
    }
  }

  has(name: string): boolean {
    return this.search.has(name);
  }

  /** A parameter that may appear at most once. */
  single(name: string): string | undefined {
    const all = this.search.getAll(name);
    if (all.length > 1) throw invalidRequest(`pass ${name} once.`, name);
    return all[0];
  }

  int(name: string, options: { min: number; max: number; fallback?: number }): number | undefined {
    const raw = this.single(name);
    if (raw === undefined || raw === "") return options.fallback;
    if (!/^-?\d{1,12}$/.test(raw)) throw invalidRequest(`${name} must be an integer.`, name);
    const n = Number(raw);
    if (n < options.min || n > options.max) {
      throw invalidRequest(`${name} must be between ${options.min} and ${options.max}.`, name);
    }
    return n;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback?: T): T | undefined {
    const raw = this.single(name);
    if (raw === undefined || raw === "") return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw invalidRequest(`${name} must be one of ${allowed.join(", ")}.`, name);
    }
    return raw as T;
  }

  /**
   * `limit` of a page (records, search hits, aggregate groups): an integer ≥ 1; a value above
   * `max` is clamped to it with a `limit_clamped` warning rather than refused (20-rs-api.md).
   */
  clampedLimit(options: { fallback: number; max: number }): { limit: number; warnings: Warning[] } {
    const raw = this.single("limit");
    if (raw === undefined || raw === "") return { limit: options.fallback, warnings: [] };
    if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1)
      throw invalidRequest(`limit must be an integer from 1 to ${options.max}.`, "limit");
    const n = Number(raw);
    if (n <= options.max) return { limit: n, warnings: [] };
    const warning: Warning = {
      code: "limit_clamped",
      message: `limit was clamped to ${options.max}.`,
      requested: n,
      applied: options.max,
    };
    return { limit: options.max, warnings: [warning] };
  }

  /** Repeated or comma-separated values, trimmed, empty ones dropped, order kept, deduplicated. */
  list(name: string): string[] | undefined {
    if (!this.search.has(name)) return undefined;
    const values = this.search
      .getAll(name)
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v.length > 0);
    return [...new Set(values)];
  }
}

/** Request-shape limits checked before routing: URL length and repeated parameters. */
export function checkUrlLimits(url: string): void {
  if (url.length > MAX_URL_CHARS) {
    throw new PdppError(
      "uri_too_long",
      `the URL is limited to ${MAX_URL_CHARS} characters (16 KiB); narrow the request.`,
    );
  }
  const counts = new Map<string, number>();
  for (const key of new URL(url).searchParams.keys()) {
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > MAX_REPEATED_PARAMS) {
      throw new PdppError(
        "limit_exceeded",
        `a parameter may be repeated at most ${MAX_REPEATED_PARAMS} times.`,
        { param: key.slice(0, 64) },
      );
    }
  }
}
