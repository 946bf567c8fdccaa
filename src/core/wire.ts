// The JSON shapes of the RS HTTP API (20-rs-api.md): produced by src/rs, consumed by src/mcp.

import type { ErrorBody } from "./errors.js";
import type { AggregationKind, RangeOp } from "./manifest.js";

export interface ErrorEnvelope {
  error: ErrorBody;
}

export interface Warning {
  code: string; // e.g. "limit_clamped", "q_not_found"
  message: string;
  [key: string]: unknown;
}

/**
 * Size and identity of a text field whose value was cut to a preview (`preview_chars`), or of a
 * binary field left in the store (value ""; digest from the chunk metadata, absent for a value
 * stored inline: hashing it would read the bytes).
 */
export interface FieldPreviewInfo {
  size_chars: number;
  digest?: string;
  complete: boolean; // false when `data[path]` holds only the first preview_chars code points
}

export interface WireRecord {
  object: "record";
  id: string; // self-contained: `{connection_id}/{stream}:{record_id}`
  stream: string;
  record_id: string;
  connection_id: string;
  connector_key: string;
  display_name: string; // the connection's display label
  emitted_at: string;
  time: string | null;
  deleted?: true; // only in changes_since answers (tombstones carry primary-key fields only)
  data: Record<string, unknown>;
  /** pdpp extension: present when `preview_chars` was passed and a text field was longer. */
  field_previews?: Record<string, FieldPreviewInfo>;
}

export interface ListEnvelope<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  next_changes_since?: string | null;
  meta: { count?: number; warnings: Warning[]; recall?: SearchRecall; [key: string]: unknown };
}

export interface SearchRecall {
  complete: boolean;
  ranking_scope: "all_matches" | "candidate_window";
  candidate_window_limit?: number;
  matched_estimate?: number;
}

export interface SearchHit {
  connection_id: string;
  connector_key: string;
  display_name: string;
  stream: string;
  record_id: string;
  id: string; // self-contained id, ready for fetch
  title: string;
  time: string | null;
  /**
   * size_chars/digest of the whole field, and start_chars/end_chars of the range the snippet shows
   * (when known): only with the pdpp extension snippet_meta=true.
   */
  snippet: {
    field: string;
    text: string;
    size_chars?: number;
    digest?: string;
    start_chars?: number;
    end_chars?: number;
  } | null;
  matched_fields: string[];
  score: number;
}

export interface FieldWindowAnswer {
  object: "field_window";
  record: { id: string; connection_id: string; stream: string; record_id: string };
  field: { path: string; text_like: boolean; mime_type?: string; size_chars: number; digest: string };
  window: {
    text: string;
    start_chars: number;
    end_chars: number;
    limit_chars: number;
    complete: boolean; // true when end_chars === size_chars and start_chars === 0, i.e. the whole field
    next_cursor: string | null;
    previous_cursor: string | null;
    match: { q: string; start_chars: number; end_chars: number } | null;
  };
  meta?: { warnings: Warning[] };
}

/** A byte range of a binary field (GET …/records/{record_id}/blob; 002 tier 4). */
export interface BlobRangeAnswer {
  object: "blob_range";
  record: { id: string; connection_id: string; stream: string; record_id: string };
  /** digest: sha256 of the stored (base64) value, the field digest used everywhere. */
  field: { path: string; mime_type: string; size_bytes: number; digest: string };
  range: {
    start_bytes: number;
    end_bytes: number;
    limit_bytes: number;
    /** True exactly when nothing of the blob is left after this range. */
    complete: boolean;
    next_offset_bytes: number | null;
    /** The range's bytes, base64. */
    data: string;
  };
}

export interface AggregateAnswer {
  object: "aggregate";
  stream: string;
  metric: "count" | "sum" | "min" | "max" | "count_distinct";
  field?: string;
  value?: number | string | null;
  groups?: { key: string | null; value: number | string | null }[];
  group_count?: number;
  other_count?: number;
  filtered_record_count: number;
  /** Qualified streams a bare shared name spans (only when it spans several connectors). */
  streams?: string[];
  effective_time_zone?: string;
  meta: { warnings: Warning[] };
}

export interface FieldCapabilities {
  type: string;
  granted: boolean;
  exact_filter: boolean;
  range_filter: RangeOp[];
  search: boolean;
  aggregations: AggregationKind[];
  text_like: boolean;
  binary?: boolean;
  description?: string; // only in view=full
  mime_type?: string;
}

export interface SchemaStream {
  name: string;
  /** `connector_key:stream`, present when another visible connector has a stream of this name. */
  qualified_name?: string;
  display_name?: string;
  primary_key: string[];
  cursor_field?: string;
  time_field?: string;
  title_field?: string;
  /** Per visible connection: how many records this bearer can see. */
  record_counts: Record<string, number>;
  /** Present with `stream=` (compact and full). */
  fields?: Record<string, FieldCapabilities>;
  /** Present only in view=full: the JSON Schema of the granted payload. */
  schema?: Record<string, unknown>;
}

export interface SchemaAnswer {
  object: "schema";
  bearer: { kind: "owner" | "client"; grant_id?: string };
  view: "compact" | "full";
  connectors: {
    connector_key: string;
    display_name: string;
    connections: { connection_id: string; display_name: string }[];
    streams: SchemaStream[];
    /** MCP index only: names of the streams past the detailed rows (see capSchemaIndex). */
    more_streams?: string[];
  }[];
  /** MCP index only: says how the index was capped. */
  note?: string;
}

export interface TokenAnswer {
  kind: "owner" | "client";
  grant?: {
    grant_id: string;
    client_name: string;
    purpose?: string;
    streams: { stream: string; connector_key: string; connections: string[] | "all" }[];
  };
  expires_at: string | null;
}
