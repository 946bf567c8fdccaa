// The Store interface: the one storage contract, implemented by sqlite/ and postgres/.
// Every read takes StreamScope(s) resolved from the bearer's grant and enforces them in SQL;
// nothing a scope hides (connection, field, out-of-range record) ever leaves a Store method.
//
// Semantics both implementations share (pinned by test/store/contract.ts):
// - Scope: only scope.connectionIds; `time` in [since, until) (since inclusive, until exclusive);
//   when a scope has a bound, records with a null `time` are hidden. Tombstones never appear
//   outside listChanges.
// - Projection: data = (granted ∩ requested fields) ∪ primary-key fields; dotted paths project
//   nested objects. A hidden field is never matched, sorted, filtered, windowed or aggregated.
// - Conditions: `eq` on an array field matches when the array contains the value; range ops
//   compare numbers numerically, time-like fields and the time_field as ISO-8601 UTC strings,
//   other strings by code point (Postgres: COLLATE "C").
// - Sort: nulls are the lowest value (first ascending, last descending); ties broken by
//   (connection_id, stream name, record_id) in the sort's direction, byte order; keyset exact.
// - Versions: one store-wide increasing sequence; a changed digest or a delete makes a new one.
// - Text: text_fields are stored in chunks of 65,536 code points with size and digest beside
//   them; previewChars cuts them (never other fields); windows count code points.
// - Match windows: first case-insensitive (Unicode simple case folding) occurrence of q;
//   window [max(0, m-before), min(size, m_end+after)); not found → match null and the window
//   [0, min(size, before+after)).
// - Search: index terms of core/search-analysis.ts; a record matches when its granted search
//   fields hold every required clause, no excluded one, and some optional one (any when none is
//   required); a clause is a term, a prefix of index terms, or a phrase within one field. Each
//   positive clause's visible matches, newest first (insertion order), are the primitive
//   core/search-ranking.ts ranks from. Order: score desc, time desc (nulls last; only where the
//   grant shows the time_field), connection_id, stream, record_id. Snippets come from
//   core/snippet.ts over granted fields only.
// - Aggregates: `count` without field counts records; with a field, non-null values. group_by on
//   an array field groups by element. Groups: value desc then key asc; group_by_time: the most
//   recent `limit` buckets in ascending key order. Keys are strings (see core/time-buckets.ts).

import type { Grant, StreamScope } from "../core/grant.js";
import type { Catalog } from "../core/grant-scope.js";
import type { Manifest, RangeOp } from "../core/manifest.js";
import type { ThrottleState } from "../core/rate-limit.js";
import type { SearchClause } from "../core/search-query.js";

export interface Connection {
  connection_id: string;
  connector_key: string;
  display_name: string;
  created_at: string;
}

// ------------------------------------------------------------------------------------- ingest

export type IngestOp =
  | { op: "upsert"; data: Record<string, unknown> }
  | { op: "delete"; data: Record<string, unknown> };

export interface IngestResult {
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  /** Ops rejected before the batch was applied; `index` is the 0-based position in the batch. */
  rejected: { index: number; reason: string }[];
}

// --------------------------------------------------------------------------------------- reads

/** A condition on a payload field; `value` is already coerced by the field's declared type. */
export interface FieldCondition {
  field: string;
  op: "eq" | RangeOp;
  value: string | number | boolean;
}

export interface SortSpec {
  /** A payload field; the stream's time_field sorts by the normalised `time` column. */
  field: string;
  direction: "asc" | "desc";
}

/** Keyset position: the last row of the previous page. */
export interface ListPosition {
  sortValue: string | number | boolean | null;
  connectionId: string;
  recordId: string;
}

export interface ListQuery {
  conditions: FieldCondition[];
  sort: SortSpec;
  limit: number;
  after?: ListPosition;
  /** When set, also count every matching record (ignoring limit/after). */
  countExact?: boolean;
  /** Projection requested by the caller (already checked against the grant); undefined = all granted. */
  fields?: string[];
  /**
   * When set, text fields longer than this come back cut, with `previews` describing them, and
   * binary fields never leave the store: each is "" with a preview entry giving its size.
   */
  previewChars?: number;
}

/**
 * changes_since reads: upserts and tombstones after `afterVersion`, in the order of the version each
 * record's scope observes (core/stamps.ts; a bookmark holds one, core/changes-bookmark.ts).
 */
export interface ChangesQuery {
  afterVersion: number; // 0 = from the beginning
  limit: number;
  fields?: string[];
  previewChars?: number;
}

export interface StoredRecord {
  connectionId: string;
  connectorKey: string;
  stream: string;
  recordId: string;
  emittedAt: string; // ISO-8601 UTC
  time: string | null; // normalised time_field value, ISO-8601 UTC
  version: number;
  digest: string; // "sha256:…" of the full payload
  deleted: boolean;
  /** Projected payload: only granted (and requested) fields plus primary-key fields. */
  data: Record<string, unknown>;
  /** For each text field cut by previewChars: its full size and digest. */
  /** A binary field's entry has its stored digest, or none when stored inline (hashing would read the bytes). */
  previews?: Record<string, { sizeChars: number; digest?: string; complete: boolean }>;
  /** The value the list was sorted by (present on listRecords results, for the next cursor). */
  sortValue?: string | number | boolean | null;
}

export interface ListResult {
  records: StoredRecord[];
  hasMore: boolean;
  count?: number;
}

export interface ChangesResult {
  records: StoredRecord[];
  hasMore: boolean;
  /** The version to resume after (the last returned, or afterVersion when none). */
  lastVersion: number;
}

export type WindowSelector =
  | { kind: "range"; offsetChars: number; limitChars: number }
  | { kind: "match"; q: string; beforeChars: number; afterChars: number; limitChars: number };

export interface FieldWindow {
  sizeChars: number;
  digest: string; // "sha256:…" of the field's UTF-8 text
  textLike: boolean;
  mimeType?: string;
  /** The window itself; offsets in Unicode code points, end exclusive. */
  text: string;
  startChars: number;
  endChars: number;
  /** For a match selector: where the first case-insensitive occurrence is, or null when absent. */
  match: { startChars: number; endChars: number } | null;
}

export interface AggregateQuery {
  metric: "count" | "sum" | "min" | "max" | "count_distinct";
  field?: string;
  conditions: FieldCondition[];
  groupBy?: string;
  groupByTime?: { field: string; granularity: TimeGranularity; timeZone: string };
  limit: number; // max groups returned
}

export type TimeGranularity = "minute" | "hour" | "day" | "week" | "month" | "quarter" | "year";

export interface AggregateResult {
  value?: number | string | null;
  /** Groups by value desc (group_by) or by key asc (group_by_time); keys are strings. */
  groups?: { key: string | null; value: number | string | null }[];
  groupCount?: number; // groups that exist in total
  otherCount?: number; // records in groups beyond `limit`
  filteredRecordCount: number;
}

export interface SearchQuery {
  clauses: SearchClause[];
  conditions: FieldCondition[]; // only with exactly one scope
  limit: number;
  offset: number;
  /** How many candidates are scored (core/search-ranking.ts): every match when at most this many. */
  rankWindow: number;
}

export interface StoredSearchHit {
  connectionId: string;
  connectorKey: string;
  stream: string;
  recordId: string;
  time: string | null;
  emittedAt: string;
  /** Value of title_field when granted and present, else null (the RS builds the fallback). */
  title: string | null;
  /**
   * Balanced <mark>…</mark>, granted fields only; with the whole field's size and digest as its
   * field window reports them (read with the hit, for the MCP content ladder).
   */
  snippet: {
    field: string;
    text: string;
    sizeChars: number;
    digest: string;
    /** The code points [start, end) of the field the snippet shows, when its text is the field's own. */
    startChars?: number;
    endChars?: number;
  } | null;
  matchedFields: string[]; // granted fields only
  score: number; // higher is better
}

export interface SearchResult {
  hits: StoredSearchHit[];
  hasMore: boolean;
  /**
   * Where the next page starts when hasMore (the offset after this page's hits, or the next
   * ranked window's first offset when this window ends short).
   */
  nextOffset?: number;
  recall: { complete: boolean; rankingScope: "all_matches" | "candidate_window"; matchedEstimate?: number };
  /** Positive clauses (as written) that no visible record holds. */
  unmatched: string[];
}

// ------------------------------------------------------------------------------ grants & log

export interface StoredGrant extends Grant {
  token_hash: string;
}

export interface AccessLogEntry {
  at: string;
  grant_id: string | null; // null for the owner
  client_name: string | null;
  route: string; // e.g. "GET /v1/search" or "mcp:search"
  stream: string | null;
  connection_id: string | null;
  record_count: number;
  bytes: number;
  status: number;
}

export interface AccessLogDay {
  grant_id: string | null;
  day: string;
  reads: number;
}

/** An owner session (browser cookie) or a one-time sign-in link, by the hash of its secret. */
export type OwnerSecretKind = "session" | "signin_link";
export interface OwnerSecretRecord {
  id_hash: string;
  kind: OwnerSecretKind;
  created_at: string;
  expires_at: string;
}

/** What a bearer hash is: the owner, a grant's token, or neither (grant null). */
export interface BearerLookup {
  owner: boolean;
  grant: StoredGrant | null;
  catalogGeneration?: string;
}

/** An OAuth token by hash and the grant it names (each null when absent). */
export interface AccessTokenLookup {
  token: OAuthTokenRecord | null;
  grant: StoredGrant | null;
  catalogGeneration?: string;
}

// ------------------------------------------------------------------------------------- the Store

export interface Store {
  readonly kind: "sqlite" | "postgres";
  close(): Promise<void>;
  /** Give cached memory back (SQLite: its page cache) once a server goes quiet; optional. */
  releaseMemory?(): Promise<void>;

  /** A named secret, created (random 32 bytes, base64url) on first use and stable afterwards. */
  secret(name: string): Promise<string>;

  putManifest(manifest: Manifest): Promise<void>;
  getManifest(connectorKey: string): Promise<Manifest | null>;
  listManifests(): Promise<Manifest[]>;

  /** Idempotent: the same (connector_key, display_name) yields the same connection. */
  ensureConnection(connectorKey: string, displayName: string): Promise<Connection>;
  getConnection(connectionId: string): Promise<Connection | null>;
  listConnections(): Promise<Connection[]>;
  /** Removes the connection and all its records; false when it did not exist. */
  deleteConnection(connectionId: string): Promise<boolean>;
  /**
   * Manifests and connections as of a moment after this call started (never stale, even when
   * another process wrote them). The objects may be shared and frozen: read them, never mutate.
   * `generation` is the catalog generation the caller's bearer lookup read in the same statement,
   * when the backend has one (Postgres); it lets a cached catalog answer without a round trip.
   */
  catalog(generation?: string): Promise<Catalog>;

  /**
   * Apply a batch atomically: invalid ops are rejected first (reported, not applied), then all
   * valid ops commit in one transaction or none do. An identical upsert is `unchanged`.
   */
  applyBatch(connectionId: string, stream: string, ops: IngestOp[]): Promise<IngestResult>;

  listRecords(scopes: StreamScope[], query: ListQuery): Promise<ListResult>;
  listChanges(scopes: StreamScope[], query: ChangesQuery): Promise<ChangesResult>;
  /**
   * Where a bookmark of the old format resumes (core/changes-bookmark.ts): the newest version the
   * scopes observe on a visible change observed before `emittedAt` (else 0), so every visible change
   * observed at or after it follows. Reads visible rows only.
   */
  changesPositionBefore(scopes: StreamScope[], emittedAt: string): Promise<number>;
  /** Visible record counts per connection (time range applied). */
  countRecords(scope: StreamScope): Promise<Record<string, number>>;
  /**
   * countRecords of each scope, in order: scopes without a time range in one read of the kept
   * counts (a grant of 12,000 streams costs one query, not 12,000), the others one by one.
   */
  countRecordsMany(scopes: StreamScope[]): Promise<Record<string, number>[]>;
  getRecord(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string },
    options?: { fields?: string[]; previewChars?: number },
  ): Promise<StoredRecord | null>;
  /**
   * A window of a field. Null when the record is not visible. A non-string value is windowed as its
   * canonical JSON (textLike false, mimeType application/json). Throws PdppError field_not_text
   * when the field is absent or null on the record.
   */
  readFieldWindow(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string; path: string },
    selector: WindowSelector,
  ): Promise<FieldWindow | null>;
  aggregate(scopes: StreamScope[], query: AggregateQuery): Promise<AggregateResult>;
  search(scopes: StreamScope[], query: SearchQuery): Promise<SearchResult>;

  putOwnerToken(tokenHash: string): Promise<void>;
  isOwnerToken(tokenHash: string): Promise<boolean>;
  createGrant(grant: StoredGrant): Promise<void>;
  getGrantByTokenHash(tokenHash: string): Promise<StoredGrant | null>;
  /**
   * isOwnerToken (only when checkOwner) then getGrantByTokenHash, as one lookup; a backend with a
   * catalog generation returns it from the same statement (see catalog()).
   */
  lookupBearer(tokenHash: string, options: { checkOwner: boolean }): Promise<BearerLookup>;
  getGrant(grantId: string): Promise<StoredGrant | null>;
  listGrants(): Promise<StoredGrant[]>;
  /** Sets revoked_at (first revocation wins); false when the grant does not exist. */
  revokeGrant(grantId: string, at: string): Promise<boolean>;

  // Owner web sign-in (src/web): the passphrase hash, sessions and one-time sign-in links. Session
  // ids and link tokens are stored only as SHA-256 hashes; the passphrase only as a scrypt hash.
  getOwnerPassphraseHash(): Promise<string | null>;
  /** Replaces the passphrase hash and ends every owner session (links stay valid). */
  setOwnerPassphraseHash(hash: string, at: string): Promise<void>;
  /** Also deletes every session and link that expired before `secret.created_at`. */
  putOwnerSecret(secret: OwnerSecretRecord): Promise<void>;
  getOwnerSecret(idHash: string, kind: OwnerSecretKind): Promise<OwnerSecretRecord | null>;
  /** Deletes and returns it (sign-out; a sign-in link is used at most once). */
  takeOwnerSecret(idHash: string, kind: OwnerSecretKind): Promise<OwnerSecretRecord | null>;

  // Throttles (sign-in backoff, OAuth rate windows): kept here so every worker process and every
  // instance on one database counts together. A key past its expiresAt reads as absent.
  getThrottle(key: string, now: number): Promise<ThrottleState | null>;
  /** Read-modify-write one key atomically across processes; `update` answers null to forget it. */
  updateThrottle(
    key: string,
    options: { now: number; update: (current: ThrottleState | null) => ThrottleState | null },
  ): Promise<ThrottleState | null>;

  /** Buffered off the request path (written within ~100 ms, at close, and before any list). */
  appendAccessLog(entry: AccessLogEntry): Promise<void>;
  listAccessLog(options: { limit: number; grantId?: string }): Promise<AccessLogEntry[]>;
  /** Rows per grant (null: the owner) per UTC day (YYYY-MM-DD) at or after `since`, for the console. */
  accessLogDaily(since: string): Promise<AccessLogDay[]>;

  // OAuth authorization server (src/oauth): registered clients, pending authorizations and the
  // codes/tokens issued for a grant. Secrets are stored only as SHA-256 hashes.
  putOAuthClient(client: OAuthClientRecord): Promise<void>;
  getOAuthClient(clientId: string): Promise<OAuthClientRecord | null>;
  /** Also deletes pending authorizations that expired before `pending.created_at`. */
  putOAuthPending(pending: OAuthPendingRecord): Promise<void>;
  getOAuthPending(pendingId: string): Promise<OAuthPendingRecord | null>;
  /** Deletes and returns it: a pending authorization is answered at most once. */
  takeOAuthPending(pendingId: string): Promise<OAuthPendingRecord | null>;
  putOAuthToken(token: OAuthTokenRecord): Promise<void>;
  getOAuthToken(tokenHash: string): Promise<OAuthTokenRecord | null>;
  /** getOAuthToken and getGrant(its grant_id) as one lookup, with the catalog generation if any. */
  lookupAccessToken(tokenHash: string): Promise<AccessTokenLookup>;
  /** Sets used_at when unset; true only for the one caller that set it (single use, atomic). */
  markOAuthTokenUsed(tokenHash: string, at: string): Promise<boolean>;
}

/** A client known to the authorization server: registered by DCR, or a fetched CIMD (cached). */
export interface OAuthClientRecord {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** "dcr" for RFC 7591 registrations; CIMD clients are not stored. */
  source: "dcr";
  /** The validated registration metadata, as answered to the client. */
  metadata: Record<string, unknown>;
  created_at: string;
}

/** A validated /authorize request waiting for the owner's decision on the consent page. */
export interface OAuthPendingRecord {
  pending_id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  state: string | null;
  scope: string | null;
  resource: string;
  code_challenge: string;
  created_at: string;
  expires_at: string;
}

/**
 * An authorization code, access token or refresh token, by hash. All of one approval share its
 * grant: revoking the grant revokes the whole family.
 */
export interface OAuthTokenRecord {
  token_hash: string;
  kind: "code" | "access" | "refresh";
  grant_id: string;
  client_id: string;
  resource: string;
  /** Codes only: the redirect URI and PKCE S256 challenge they are bound to. */
  redirect_uri: string | null;
  code_challenge: string | null;
  scope: string | null;
  created_at: string;
  expires_at: string;
  /** Codes and refresh tokens: when they were redeemed (each is single-use). */
  used_at: string | null;
}
