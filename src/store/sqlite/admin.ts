// Owner-side tables of the SQLite store: secrets, manifests, connections, tokens, grants, access log.
import { randomBytes } from "node:crypto";
import { deepFreeze } from "../../core/deep-freeze.js";
import { PdppError } from "../../core/errors.js";
import type { Catalog } from "../../core/grant-scope.js";
import { connectionIdFor } from "../../core/ids.js";
import type { Manifest, StreamDef } from "../../core/manifest.js";
import type { AccessLogDay, AccessLogEntry, Connection, StoredGrant } from "../store.js";
import type { SqliteDb } from "./db.js";
import { reindexStream } from "./search-reindex.js";
import { connectorSearchStreams, connectorSearchTables } from "./search-tables.js";

interface GrantRow {
  token_hash: string;
  grant_json: string;
  revoked_at: string | null;
}

export class SqliteAdmin {
  private readonly manifestCache = new Map<string, Manifest | null>();
  private catalogCache: { key: string; catalog: Catalog } | null = null;
  private manifestCacheKey = "";

  constructor(private readonly db: SqliteDb) {}

  /**
   * What the manifest and catalog caches are valid for, read without I/O: data_version changes
   * whenever ANY other connection (another process, another store handle) commits to this file,
   * and total_changes() whenever this connection itself writes a row. A cache filled under the
   * same key has seen every committed manifest/connection change; any other write only costs a
   * refill.
   */
  private freshnessKey(): string {
    const row = this.db
      .stmt("SELECT total_changes() AS t, (SELECT data_version FROM pragma_data_version) AS d")
      .get() as { t: number; d: number };
    return `${row.d}:${row.t}`;
  }

  /** Drop the per-connector manifest cache when another writer may have changed a manifest. */
  private checkManifestCache(): void {
    // Inside a transaction the connection may see writes that roll back without moving the key:
    // start over, and make the first read after the transaction start over again.
    const key = this.db.raw.inTransaction ? "" : this.freshnessKey();
    if (key === "") this.manifestCache.clear();
    if (key !== this.manifestCacheKey) {
      this.manifestCache.clear();
      this.manifestCacheKey = key;
    }
  }

  /**
   * Manifests and connections, as one consistent read, cached until the freshness key moves. The
   * cached objects are frozen and shared: callers only read them.
   */
  catalog(): Catalog {
    if (this.db.raw.inTransaction)
      return { manifests: this.listManifests(), connections: this.listConnections() };
    const key = this.freshnessKey();
    if (this.catalogCache?.key === key) return this.catalogCache.catalog;
    const catalog = this.db.raw
      .transaction(() => deepFreeze({ manifests: this.listManifests(), connections: this.listConnections() }))
      .deferred();
    this.catalogCache = { key, catalog };
    return catalog;
  }

  secret(name: string): string {
    const row = this.db.stmt("SELECT value FROM secrets WHERE name = ?").get(name) as
      | { value: string }
      | undefined;
    if (row) return row.value;
    this.db
      .stmt("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)")
      .run(name, randomBytes(32).toString("base64url"));
    return (this.db.stmt("SELECT value FROM secrets WHERE name = ?").get(name) as { value: string }).value;
  }

  /**
   * Store a manifest; a stream whose search fields changed is re-indexed in the same transaction,
   * so no read ever sees the new manifest over rows indexed under the old field list.
   */
  putManifest(manifest: Manifest): void {
    const key = manifest.connector_key;
    this.db.raw
      .transaction(() => {
        this.db
          .stmt(
            `INSERT INTO manifests (connector_key, manifest, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (connector_key) DO UPDATE SET manifest = excluded.manifest, updated_at = excluded.updated_at`,
          )
          .run(key, JSON.stringify(manifest), new Date().toISOString());
        const streams = new Set([
          ...manifest.streams.map((s) => s.name),
          ...connectorSearchStreams(this.db, key),
        ]);
        for (const stream of streams) {
          reindexStream(this.db, {
            connectorKey: key,
            stream,
            def: manifest.streams.find((s) => s.name === stream),
          });
        }
      })
      .immediate();
    this.manifestCache.delete(key);
  }

  getManifest(connectorKey: string): Manifest | null {
    this.checkManifestCache();
    if (this.manifestCache.has(connectorKey))
      return structuredClone(this.manifestCache.get(connectorKey) ?? null);
    const row = this.db.stmt("SELECT manifest FROM manifests WHERE connector_key = ?").get(connectorKey) as
      | { manifest: string }
      | undefined;
    const manifest = row ? (JSON.parse(row.manifest) as Manifest) : null;
    this.manifestCache.set(connectorKey, manifest);
    return structuredClone(manifest);
  }

  /** The cached (not copied) stream definition, for internal use on hot paths. */
  streamDef(connectorKey: string, stream: string): StreamDef | undefined {
    this.checkManifestCache();
    if (!this.manifestCache.has(connectorKey)) this.getManifest(connectorKey);
    return this.manifestCache.get(connectorKey)?.streams.find((s) => s.name === stream);
  }

  listManifests(): Manifest[] {
    const rows = this.db.stmt("SELECT manifest FROM manifests ORDER BY connector_key").all() as {
      manifest: string;
    }[];
    return rows.map((r) => JSON.parse(r.manifest) as Manifest);
  }

  ensureConnection(connectorKey: string, displayName: string): Connection {
    const connectionId = connectionIdFor(connectorKey, displayName);
    this.db
      .stmt(
        "INSERT OR IGNORE INTO connections (connection_id, connector_key, display_name, created_at) VALUES (?, ?, ?, ?)",
      )
      .run(connectionId, connectorKey, displayName, new Date().toISOString());
    return this.getConnection(connectionId) as Connection;
  }

  getConnection(connectionId: string): Connection | null {
    const row = this.db
      .stmt(
        "SELECT connection_id, connector_key, display_name, created_at FROM connections WHERE connection_id = ?",
      )
      .get(connectionId) as Connection | undefined;
    return row ?? null;
  }

  listConnections(): Connection[] {
    return this.db
      .stmt(
        "SELECT connection_id, connector_key, display_name, created_at FROM connections ORDER BY connection_id",
      )
      .all() as Connection[];
  }

  deleteConnection(connectionId: string): boolean {
    return this.db.raw
      .transaction(() => {
        // FTS tables are virtual: no cascade reaches them.
        const connection = this.getConnection(connectionId);
        for (const table of connection ? connectorSearchTables(this.db, connection.connector_key) : []) {
          this.db
            .stmt(`DELETE FROM ${table} WHERE rowid IN (SELECT id FROM records WHERE connection_id = ?)`)
            .run(connectionId);
        }
        return this.db.stmt("DELETE FROM connections WHERE connection_id = ?").run(connectionId).changes > 0;
      })
      .immediate();
  }

  putOwnerToken(tokenHash: string): void {
    this.db
      .stmt("INSERT OR IGNORE INTO owner_tokens (token_hash, created_at) VALUES (?, ?)")
      .run(tokenHash, new Date().toISOString());
  }

  isOwnerToken(tokenHash: string): boolean {
    return this.db.stmt("SELECT 1 FROM owner_tokens WHERE token_hash = ?").get(tokenHash) !== undefined;
  }

  createGrant(grant: StoredGrant): void {
    const { token_hash: tokenHash, ...rest } = grant;
    try {
      this.db
        .stmt(
          "INSERT INTO grants (grant_id, token_hash, grant_json, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(grant.grant_id, tokenHash, JSON.stringify(rest), grant.created_at, grant.revoked_at);
    } catch (error) {
      if (String(error).includes("UNIQUE"))
        throw new PdppError("invalid_request", "that grant id or token already exists.");
      throw error;
    }
  }

  private grantFrom(row: GrantRow | undefined): StoredGrant | null {
    if (!row) return null;
    const grant = JSON.parse(row.grant_json) as Omit<StoredGrant, "token_hash">;
    return { ...grant, revoked_at: row.revoked_at, token_hash: row.token_hash };
  }

  getGrantByTokenHash(tokenHash: string): StoredGrant | null {
    const sql = "SELECT token_hash, grant_json, revoked_at FROM grants WHERE token_hash = ?";
    return this.grantFrom(this.db.stmt(sql).get(tokenHash) as GrantRow | undefined);
  }

  getGrant(grantId: string): StoredGrant | null {
    const sql = "SELECT token_hash, grant_json, revoked_at FROM grants WHERE grant_id = ?";
    return this.grantFrom(this.db.stmt(sql).get(grantId) as GrantRow | undefined);
  }

  listGrants(): StoredGrant[] {
    const sql = "SELECT token_hash, grant_json, revoked_at FROM grants ORDER BY created_at, grant_id";
    return (this.db.stmt(sql).all() as GrantRow[]).map((r) => this.grantFrom(r) as StoredGrant);
  }

  revokeGrant(grantId: string, at: string): boolean {
    if (!this.db.stmt("SELECT 1 FROM grants WHERE grant_id = ?").get(grantId)) return false;
    this.db
      .stmt("UPDATE grants SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL")
      .run(at, grantId);
    return true;
  }

  /** One transaction for a batch of rows (the store buffers them off the request path). */
  appendAccessLog(entries: AccessLogEntry[]): void {
    const insert = this.db.stmt(
      `INSERT INTO access_log (at, grant_id, client_name, route, stream, connection_id, record_count, bytes, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.raw.transaction(() => {
      for (const e of entries) {
        insert.run(
          e.at,
          e.grant_id,
          e.client_name,
          e.route,
          e.stream,
          e.connection_id,
          e.record_count,
          e.bytes,
          e.status,
        );
      }
    })();
  }

  accessLogDaily(since: string): AccessLogDay[] {
    return this.db
      .stmt(
        `SELECT grant_id, substr(at, 1, 10) AS day, count(*) AS reads FROM access_log
         WHERE at >= ? GROUP BY grant_id, day ORDER BY day`,
      )
      .all(since) as AccessLogDay[];
  }

  /** Newest first. */
  listAccessLog(options: { limit: number; grantId?: string }): AccessLogEntry[] {
    const columns = "at, grant_id, client_name, route, stream, connection_id, record_count, bytes, status";
    if (options.grantId !== undefined) {
      return this.db
        .stmt(`SELECT ${columns} FROM access_log WHERE grant_id = ? ORDER BY id DESC LIMIT ?`)
        .all(options.grantId, options.limit) as AccessLogEntry[];
    }
    return this.db
      .stmt(`SELECT ${columns} FROM access_log ORDER BY id DESC LIMIT ?`)
      .all(options.limit) as AccessLogEntry[];
  }
}
