// The Postgres Store: the same contract as SQLite (src/store/store.ts) over a pg.Pool in one schema.
import type pg from "pg";
import { deepFreeze } from "../../core/deep-freeze.js";
import type { StreamScope } from "../../core/grant.js";
import type { Catalog } from "../../core/grant-scope.js";
import type { Manifest } from "../../core/manifest.js";
import type { ThrottleState } from "../../core/rate-limit.js";
import { AccessLogBuffer } from "../access-log-buffer.js";
import type {
  AccessLogDay,
  AccessLogEntry,
  AccessTokenLookup,
  AggregateQuery,
  AggregateResult,
  BearerLookup,
  ChangesQuery,
  ChangesResult,
  Connection,
  FieldWindow,
  IngestOp,
  IngestResult,
  ListQuery,
  ListResult,
  OAuthClientRecord,
  OAuthPendingRecord,
  OAuthTokenRecord,
  OwnerSecretKind,
  OwnerSecretRecord,
  SearchQuery,
  SearchResult,
  Store,
  StoredGrant,
  StoredRecord,
  WindowSelector,
} from "../store.js";
import * as admin from "./admin-ops.js";
import { aggregate } from "./aggregate.js";
import { BulkAnalyzer } from "./analyze.js";
import { changesPositionBefore } from "./changes-anchor.js";
import { readFieldWindow } from "./field-window.js";
import { applyBatch } from "./ingest.js";
import { listRecords } from "./list-records.js";
import { migrate } from "./migrations.js";
import * as oauth from "./oauth.js";
import * as ownerWeb from "./owner-web.js";
import { openPool } from "./pool.js";
import { countRecords, countRecordsMany, getRecord, listChanges } from "./reads.js";
import { search } from "./search.js";
import * as throttles from "./throttles.js";

export interface PostgresStoreOptions {
  url: string;
  /** Schema to live in (created when missing); default: the server's search_path (public). */
  schema?: string;
  poolSize?: number;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const pool = await openPool(options);
  try {
    await assertUtf8(pool);
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool);
}

/** Windows count code points with substr/length; that is only true in a UTF8 database. */
async function assertUtf8(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ enc: string }>("SELECT current_setting('server_encoding') AS enc");
  if (rows[0].enc !== "UTF8") {
    throw new Error(
      `pdpp needs a UTF8 Postgres database (this one is ${rows[0].enc}): windows count code points`,
    );
  }
}

class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  private closed = false;
  private catalogCache: { gen: string; catalog: Catalog } | null = null;
  private readonly analyzer = new BulkAnalyzer();
  private readonly accessLog: AccessLogBuffer;

  constructor(readonly pool: pg.Pool) {
    this.accessLog = new AccessLogBuffer((rows) => admin.appendAccessLog(this.pool, rows));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.accessLog.flush();
    await this.pool.end();
  }

  secret(name: string): Promise<string> {
    return admin.secret(this.pool, name);
  }
  putManifest(manifest: Manifest): Promise<void> {
    return admin.putManifest(this.pool, manifest);
  }
  getManifest(connectorKey: string): Promise<Manifest | null> {
    return admin.getManifest(this.pool, connectorKey);
  }
  listManifests(): Promise<Manifest[]> {
    return admin.listManifests(this.pool);
  }
  ensureConnection(connectorKey: string, displayName: string): Promise<Connection> {
    return admin.ensureConnection(this.pool, connectorKey, displayName);
  }
  getConnection(connectionId: string): Promise<Connection | null> {
    return admin.getConnection(this.pool, connectionId);
  }
  listConnections(): Promise<Connection[]> {
    return admin.listConnections(this.pool);
  }
  /**
   * Cached under the generation read BEFORE the manifests and connections: the content is then at
   * least as new as its label, and it is reused only by a request whose own generation read (with
   * its bearer lookup, or here) equals that label, i.e. after which no catalog write committed.
   */
  async catalog(generation?: string): Promise<Catalog> {
    const gen = generation ?? (await admin.catalogGeneration(this.pool));
    if (this.catalogCache?.gen === gen) return this.catalogCache.catalog;
    const [manifests, connections] = await Promise.all([this.listManifests(), this.listConnections()]);
    const catalog = deepFreeze({ manifests, connections });
    this.catalogCache = { gen, catalog };
    return catalog;
  }
  lookupBearer(tokenHash: string, options: { checkOwner: boolean }): Promise<BearerLookup> {
    return admin.lookupBearer(this.pool, tokenHash, options);
  }
  deleteConnection(connectionId: string): Promise<boolean> {
    return admin.deleteConnection(this.pool, connectionId);
  }

  async applyBatch(connectionId: string, stream: string, ops: IngestOp[]): Promise<IngestResult> {
    const result = await applyBatch(this.pool, { connectionId, stream, ops });
    await this.analyzer.note(this.pool, result.added + result.updated + result.deleted);
    return result;
  }

  listRecords(scopes: StreamScope[], query: ListQuery): Promise<ListResult> {
    return listRecords(this.pool, scopes, query);
  }
  listChanges(scopes: StreamScope[], query: ChangesQuery): Promise<ChangesResult> {
    return listChanges(this.pool, scopes, query);
  }
  changesPositionBefore(scopes: StreamScope[], emittedAt: string): Promise<number> {
    return changesPositionBefore(this.pool, scopes, emittedAt);
  }
  countRecords(scope: StreamScope): Promise<Record<string, number>> {
    return countRecords(this.pool, scope);
  }
  countRecordsMany(scopes: StreamScope[]): Promise<Record<string, number>[]> {
    return countRecordsMany(this.pool, scopes);
  }
  getRecord(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string },
    options: { fields?: string[]; previewChars?: number } = {},
  ): Promise<StoredRecord | null> {
    return getRecord(this.pool, scope, { ...ref, ...options });
  }
  readFieldWindow(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string; path: string },
    selector: WindowSelector,
  ): Promise<FieldWindow | null> {
    return readFieldWindow(this.pool, scope, { ...ref, selector });
  }
  aggregate(scopes: StreamScope[], query: AggregateQuery): Promise<AggregateResult> {
    return aggregate(this.pool, scopes, query);
  }
  search(scopes: StreamScope[], query: SearchQuery): Promise<SearchResult> {
    // The emitted_at a projected grant observes comes with the page (search.ts).
    return search(this.pool, scopes, query);
  }

  putOwnerToken(tokenHash: string): Promise<void> {
    return admin.putOwnerToken(this.pool, tokenHash);
  }
  isOwnerToken(tokenHash: string): Promise<boolean> {
    return admin.isOwnerToken(this.pool, tokenHash);
  }
  createGrant(grant: StoredGrant): Promise<void> {
    return admin.createGrant(this.pool, grant);
  }
  getGrantByTokenHash(tokenHash: string): Promise<StoredGrant | null> {
    return admin.getGrantByTokenHash(this.pool, tokenHash);
  }
  getGrant(grantId: string): Promise<StoredGrant | null> {
    return admin.getGrant(this.pool, grantId);
  }
  listGrants(): Promise<StoredGrant[]> {
    return admin.listGrants(this.pool);
  }
  revokeGrant(grantId: string, at: string): Promise<boolean> {
    return admin.revokeGrant(this.pool, grantId, at);
  }
  getOwnerPassphraseHash(): Promise<string | null> {
    return ownerWeb.getPassphraseHash(this.pool);
  }
  setOwnerPassphraseHash(hash: string, at: string): Promise<void> {
    return ownerWeb.setPassphraseHash(this.pool, hash, at);
  }
  putOwnerSecret(secret: OwnerSecretRecord): Promise<void> {
    return ownerWeb.putSecret(this.pool, secret);
  }
  getOwnerSecret(idHash: string, kind: OwnerSecretKind): Promise<OwnerSecretRecord | null> {
    return ownerWeb.getSecret(this.pool, idHash, kind);
  }
  takeOwnerSecret(idHash: string, kind: OwnerSecretKind): Promise<OwnerSecretRecord | null> {
    return ownerWeb.takeSecret(this.pool, idHash, kind);
  }
  getThrottle(key: string, now: number): Promise<ThrottleState | null> {
    return throttles.getThrottle(this.pool, key, now);
  }
  updateThrottle(
    key: string,
    options: { now: number; update: (current: ThrottleState | null) => ThrottleState | null },
  ): Promise<ThrottleState | null> {
    return throttles.updateThrottle(this.pool, key, options);
  }
  async appendAccessLog(entry: AccessLogEntry): Promise<void> {
    this.accessLog.append(entry);
  }
  async accessLogDaily(since: string): Promise<AccessLogDay[]> {
    await this.accessLog.flush();
    return admin.accessLogDaily(this.pool, since);
  }
  async listAccessLog(options: { limit: number; grantId?: string }): Promise<AccessLogEntry[]> {
    await this.accessLog.flush();
    return admin.listAccessLog(this.pool, options);
  }
  putOAuthClient(client: OAuthClientRecord): Promise<void> {
    return oauth.putOAuthClient(this.pool, client);
  }
  getOAuthClient(clientId: string): Promise<OAuthClientRecord | null> {
    return oauth.getOAuthClient(this.pool, clientId);
  }
  putOAuthPending(pending: OAuthPendingRecord): Promise<void> {
    return oauth.putOAuthPending(this.pool, pending);
  }
  getOAuthPending(pendingId: string): Promise<OAuthPendingRecord | null> {
    return oauth.getOAuthPending(this.pool, pendingId);
  }
  takeOAuthPending(pendingId: string): Promise<OAuthPendingRecord | null> {
    return oauth.takeOAuthPending(this.pool, pendingId);
  }
  putOAuthToken(token: OAuthTokenRecord): Promise<void> {
    return oauth.putOAuthToken(this.pool, token);
  }
  getOAuthToken(tokenHash: string): Promise<OAuthTokenRecord | null> {
    return oauth.getOAuthToken(this.pool, tokenHash);
  }
  lookupAccessToken(tokenHash: string): Promise<AccessTokenLookup> {
    return admin.lookupAccessToken(this.pool, tokenHash);
  }
  markOAuthTokenUsed(tokenHash: string, at: string): Promise<boolean> {
    return oauth.markOAuthTokenUsed(this.pool, tokenHash, at);
  }
}
