// Grant types (10-data-model.md) and the resolved read scope a bearer has on one stream.

import type { StreamDef } from "./manifest.js";
import { isPathGranted } from "./projection.js";

export interface GrantStream {
  stream: string;
  connector_key: string;
  connections: string[] | "all";
  fields: string[] | "all";
  time_range?: { since?: string | null; until?: string | null } | null;
}

export interface Grant {
  grant_id: string;
  client_name: string;
  purpose: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  streams: GrantStream[];
}

/**
 * What one bearer may read of one (connector, stream): the input of every Store read.
 * The Store enforces it inside SQL: only `connectionIds`, only records whose `time` lies in
 * [since, until), only `fields` in data, search and windows. Resolved by the RS from the grant.
 */
export interface StreamScope {
  connectorKey: string;
  stream: StreamDef;
  /** Visible connections, never empty, sorted. */
  connectionIds: string[];
  /** Granted top-level or dotted field paths; "all" for the owner or a fields:"all" grant. */
  fields: string[] | "all";
  /** ISO-8601 UTC bounds on the record's `time` (inclusive since, exclusive until). */
  since: string | null;
  until: string | null;
}

/** True when the scope may see `path`: granted, or a primary-key field (always included). */
export function scopeGrantsPath(scope: StreamScope, path: string): boolean {
  if (isPathGranted(path, scope.fields)) return true;
  return scope.stream.primary_key.some((key) => path === key || path.startsWith(`${key}.`));
}

/**
 * True when the scope may see the record's `time` (its stream's time_field is granted). When not,
 * `time` is null in every answer and nothing may be ordered by it either (noninterference).
 */
export function scopeGrantsTime(scope: StreamScope): boolean {
  const timeField = scope.stream.time_field;
  return timeField !== undefined && scopeGrantsPath(scope, timeField);
}

/**
 * The binary field paths of each connector the scopes read (what a preview read leaves in the
 * store). The scopes of one read share a stream name, so each connector has one stream here.
 */
export function binaryFieldsByConnector(scopes: StreamScope[]): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const s of scopes) {
    const paths = s.stream.binary_fields ?? [];
    if (paths.length > 0) byKey.set(s.connectorKey, paths);
  }
  return byKey;
}
