// The embedded SQLite implementation of the Store interface (better-sqlite3, WAL, FTS5).
import { PdppError } from "../../core/errors.js";
import type { StreamScope } from "../../core/grant.js";
import type { Manifest } from "../../core/manifest.js";
import type { ThrottleState } from "../../core/rate-limit.js";
import { AccessLogBuffer } from "../access-log-buffer.js";
import type {
  AccessLogEntry,
  AggregateQuery,
  ChangesQuery,
  IngestOp,
  IngestResult,
  ListQuery,
  OAuthClientRecord,
  OAuthPendingRecord,
  OAuthTokenRecord,
  OwnerSecretKind,
  OwnerSecretRecord,
  SearchQuery,
  Store,
  StoredGrant,
  WindowSelector,
} from "../store.js";
import { SqliteAdmin } from "./admin.js";
import { aggregate } from "./aggregate.js";
import { changesPositionBefore } from "./changes-anchor.js";
import { SqliteDb } from "./db.js";
import { applyPrepared, prepareBatch } from "./ingest.js";
import { type PreparedOp, streamDefKey } from "./ingest-prepare.js";
import { SqliteOAuth } from "./oauth.js";
import { SqliteOwnerWeb } from "./owner-web.js";
import { countRecords, countRecordsMany, getRecord, listChanges, listRecords } from "./records.js";
import { search } from "./search.js";
import { SearchMerger } from "./search-merge.js";
import { getThrottle, updateThrottle } from "./throttles.js";
import { readFieldWindow } from "./windows.js";

class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly admin: SqliteAdmin;
  private readonly accessLog: AccessLogBuffer;
  private readonly oauth: SqliteOAuth;
  private readonly ownerWeb: SqliteOwnerWeb;
  /** Merges the FTS tables an import wrote once writes pause (search-merge.ts). */
  private readonly merger: SearchMerger;

  constructor(
    private readonly db: SqliteDb,
    mergeIdleMs?: number,
  ) {
    this.merger = new SearchMerger(db, mergeIdleMs);
    this.admin = new SqliteAdmin(db);
    this.accessLog = new AccessLogBuffer((rows) => this.admin.appendAccessLog(rows));
    this.oauth = new SqliteOAuth(db);
    this.ownerWeb = new SqliteOwnerWeb(db);
  }

  async releaseMemory() {
    // Frees the connection's page cache (it refills from the OS file cache on the next reads).
    this.db.raw.pragma("shrink_memory");
  }
  async close() {
    await this.accessLog.flush();
    this.merger.flush();
    this.db.close();
  }

  async secret(name: string) {
    return this.admin.secret(name);
  }

  async putManifest(manifest: Manifest) {
    this.admin.putManifest(manifest);
  }
  async getManifest(connectorKey: string) {
    return this.admin.getManifest(connectorKey);
  }
  async listManifests() {
    return this.admin.listManifests();
  }

  async ensureConnection(connectorKey: string, displayName: string) {
    return this.admin.ensureConnection(connectorKey, displayName);
  }
  async getConnection(connectionId: string) {
    return this.admin.getConnection(connectionId);
  }
  async listConnections() {
    return this.admin.listConnections();
  }
  async lookupBearer(tokenHash: string, options: { checkOwner: boolean }) {
    if (options.checkOwner && this.admin.isOwnerToken(tokenHash)) return { owner: true, grant: null };
    return { owner: false, grant: this.admin.getGrantByTokenHash(tokenHash) };
  }
  async catalog() {
    return this.admin.catalog();
  }
  async deleteConnection(connectionId: string) {
    return this.admin.deleteConnection(connectionId);
  }

  async applyBatch(connectionId: string, stream: string, ops: IngestOp[]): Promise<IngestResult> {
    const { def, target } = this.ingestTarget(connectionId, stream);
    const { prepared, rejected } = prepareBatch(ops, def);
    return { ...this.write(target, prepared), rejected };
  }

  /**
   * applyBatch for ops validated and prepared elsewhere (an import's worker thread) under the stream
   * definition whose streamDefKey is `defKey`: null, writing nothing, when the store's definition
   * differs (the caller then sends the records through applyBatch).
   */
  applyPreparedBatch(
    connectionId: string,
    stream: string,
    batch: { defKey: string; ops: PreparedOp[] },
  ): Omit<IngestResult, "rejected"> | null {
    const { def, target } = this.ingestTarget(connectionId, stream);
    if (streamDefKey(def) !== batch.defKey) return null;
    return this.write(target, batch.ops);
  }

  private write(target: Parameters<typeof applyPrepared>[1], ops: PreparedOp[]) {
    const counts = applyPrepared(this.db, target, ops);
    this.merger.wrote(target.connectorKey, target.stream, counts.added + counts.updated + counts.deleted);
    return counts;
  }

  /** The stream definition and write target of a batch; typed errors for an unknown connection or stream. */
  private ingestTarget(connectionId: string, stream: string) {
    const connection = this.admin.getConnection(connectionId);
    if (!connection)
      throw new PdppError("connection_not_found", `connection ${connectionId} does not exist.`);
    const def = this.admin.streamDef(connection.connector_key, stream);
    if (!def) {
      throw new PdppError(
        "stream_not_found",
        `connector ${connection.connector_key} has no stream ${stream}.`,
      );
    }
    const target = {
      connectionId,
      connectorKey: connection.connector_key,
      stream,
      search: def.query?.search,
    };
    return { def, target };
  }

  async listRecords(scopes: StreamScope[], query: ListQuery) {
    return listRecords(this.db, scopes, query);
  }
  async listChanges(scopes: StreamScope[], query: ChangesQuery) {
    return listChanges(this.db, scopes, query);
  }
  async changesPositionBefore(scopes: StreamScope[], emittedAt: string) {
    return changesPositionBefore(this.db, scopes, emittedAt);
  }
  async countRecords(scope: StreamScope) {
    return countRecords(this.db, scope);
  }
  async countRecordsMany(scopes: StreamScope[]) {
    return countRecordsMany(this.db, scopes);
  }
  async getRecord(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string },
    options?: { fields?: string[]; previewChars?: number },
  ) {
    return getRecord(this.db, scope, ref, options);
  }
  async readFieldWindow(
    scope: StreamScope,
    ref: { connectionId: string; recordId: string; path: string },
    selector: WindowSelector,
  ) {
    return readFieldWindow(this.db, scope, ref, selector);
  }
  async aggregate(scopes: StreamScope[], query: AggregateQuery) {
    return aggregate(this.db, scopes, query);
  }
  async search(scopes: StreamScope[], query: SearchQuery) {
    return search(this.db, scopes, query);
  }

  async putOwnerToken(tokenHash: string) {
    this.admin.putOwnerToken(tokenHash);
  }
  async isOwnerToken(tokenHash: string) {
    return this.admin.isOwnerToken(tokenHash);
  }
  async createGrant(grant: StoredGrant) {
    this.admin.createGrant(grant);
  }
  async getGrantByTokenHash(tokenHash: string) {
    return this.admin.getGrantByTokenHash(tokenHash);
  }
  async getGrant(grantId: string) {
    return this.admin.getGrant(grantId);
  }
  async listGrants() {
    return this.admin.listGrants();
  }
  async revokeGrant(grantId: string, at: string) {
    return this.admin.revokeGrant(grantId, at);
  }
  async getOwnerPassphraseHash() {
    return this.ownerWeb.getPassphraseHash();
  }
  async setOwnerPassphraseHash(hash: string, at: string) {
    this.ownerWeb.setPassphraseHash(hash, at);
  }
  async putOwnerSecret(secret: OwnerSecretRecord) {
    this.ownerWeb.putSecret(secret);
  }
  async getOwnerSecret(idHash: string, kind: OwnerSecretKind) {
    return this.ownerWeb.getSecret(idHash, kind);
  }
  async takeOwnerSecret(idHash: string, kind: OwnerSecretKind) {
    return this.ownerWeb.takeSecret(idHash, kind);
  }
  async getThrottle(key: string, now: number) {
    return getThrottle(this.db, key, now);
  }
  async updateThrottle(
    key: string,
    options: { now: number; update: (current: ThrottleState | null) => ThrottleState | null },
  ) {
    return updateThrottle(this.db, key, options);
  }
  async appendAccessLog(entry: AccessLogEntry) {
    this.accessLog.append(entry);
  }
  async accessLogDaily(since: string) {
    await this.accessLog.flush();
    return this.admin.accessLogDaily(since);
  }
  async listAccessLog(options: { limit: number; grantId?: string }) {
    await this.accessLog.flush();
    return this.admin.listAccessLog(options);
  }
  async putOAuthClient(client: OAuthClientRecord) {
    this.oauth.putClient(client);
  }
  async getOAuthClient(clientId: string) {
    return this.oauth.getClient(clientId);
  }
  async putOAuthPending(pending: OAuthPendingRecord) {
    this.oauth.putPending(pending);
  }
  async getOAuthPending(pendingId: string) {
    return this.oauth.getPending(pendingId);
  }
  async takeOAuthPending(pendingId: string) {
    return this.oauth.takePending(pendingId);
  }
  async putOAuthToken(token: OAuthTokenRecord) {
    this.oauth.putToken(token);
  }
  async getOAuthToken(tokenHash: string) {
    return this.oauth.getToken(tokenHash);
  }
  async lookupAccessToken(tokenHash: string) {
    const token = this.oauth.getToken(tokenHash);
    const grant = token?.grant_id ? this.admin.getGrant(token.grant_id) : null;
    return { token, grant };
  }
  async markOAuthTokenUsed(tokenHash: string, at: string) {
    return this.oauth.markTokenUsed(tokenHash, at);
  }
}

/** The in-process prepared-ops entrance of a SQLite store (owner-sink.ts), or undefined for another store. */
export function preparedIngestOf(store: Store): SqliteStore["applyPreparedBatch"] | undefined {
  return store instanceof SqliteStore ? store.applyPreparedBatch.bind(store) : undefined;
}

/** Open (creating and migrating when needed) a SQLite store; `path` may be ":memory:". */
/** `mergeIdleMs`: quiet time before written FTS tables are merged (search-merge.ts; tests lengthen it). */
export async function openSqliteStore(options: { path: string; mergeIdleMs?: number }): Promise<Store> {
  return new SqliteStore(new SqliteDb(options.path), options.mergeIdleMs);
}
