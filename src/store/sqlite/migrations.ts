// Versioned schema of the SQLite store: each migration runs once, inside a transaction, and is
// recorded in schema_migrations.

import type { SqliteDb } from "./db.js";
import { OAUTH_TABLES_SQL } from "./oauth.js";
import { OWNER_WEB_TABLES_SQL } from "./owner-web.js";
import { reindexAnalyzed, reindexMixedTables, reindexSearch } from "./search-reindex.js";
import { THROTTLES_TABLE_SQL } from "./throttles.js";

// Version 1 had one FTS table shared by every stream (version 2 replaces it; see search-tables.ts).
const FTS_TOKENIZER = `unicode61 remove_diacritics 0 categories 'L* N* Co M*'`;
const ftsColumns = Array.from({ length: 16 }, (_, i) => `c${i}`).join(", ");

const MIGRATIONS: { version: number; sql: string; run?: (db: SqliteDb) => void }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE manifests (connector_key TEXT PRIMARY KEY, manifest TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE connections (
        connection_id TEXT PRIMARY KEY,
        connector_key TEXT NOT NULL,
        display_name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE records (
        id INTEGER PRIMARY KEY,
        connection_id TEXT NOT NULL REFERENCES connections(connection_id) ON DELETE CASCADE,
        stream TEXT NOT NULL,
        record_id TEXT NOT NULL,
        connector_key TEXT NOT NULL,
        payload TEXT NOT NULL,
        emitted_at TEXT NOT NULL,
        time TEXT,
        version INTEGER NOT NULL,
        digest TEXT NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0,
        UNIQUE (connection_id, stream, record_id)
      );
      CREATE INDEX records_connection_time ON records (connection_id, stream, time, record_id);
      -- Partial and covering for live rows: ordered pages and counts across connections never touch tombstones.
      CREATE INDEX records_stream_time ON records (stream, time, connection_id, record_id) WHERE deleted = 0;
      CREATE INDEX records_stream_version ON records (stream, version);
      CREATE TABLE text_fields (
        record_row INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        size_chars INTEGER NOT NULL,
        digest TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        PRIMARY KEY (record_row, path)
      ) WITHOUT ROWID;
      CREATE TABLE text_chunks (
        record_row INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (record_row, path, seq)
      );
      CREATE VIRTUAL TABLE search_index USING fts5(
        ${ftsColumns}, content='', contentless_delete=1, tokenize="${FTS_TOKENIZER}"
      );
      CREATE TABLE owner_tokens (token_hash TEXT PRIMARY KEY, created_at TEXT NOT NULL);
      CREATE TABLE grants (
        grant_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        grant_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE access_log (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        grant_id TEXT,
        client_name TEXT,
        route TEXT NOT NULL,
        stream TEXT,
        connection_id TEXT,
        record_count INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        status INTEGER NOT NULL
      );
      CREATE INDEX access_log_grant ON access_log (grant_id, id);
      INSERT INTO store_meta (key, value) VALUES ('version', '0');
    `,
  },
  { version: 2, sql: "", run: reindexSearch },
  // The OAuth authorization server's clients, pending authorizations and hashed codes/tokens.
  { version: 3, sql: OAUTH_TABLES_SQL },
  // Tables whose rows a changed manifest left under two layouts are rebuilt (manifests now
  // re-index on registration, see search-reindex.ts).
  { version: 4, sql: "", run: reindexMixedTables },
  // Owner web sign-in: the passphrase hash, sessions and one-time sign-in links (hashed).
  { version: 5, sql: OWNER_WEB_TABLES_SQL },
  // Search reads a window row's time (tie order) and visibility by rowid from this covering index
  // instead of the wide records row (search-candidates.ts). SQLite keeps it in the writing
  // transaction; its key is the rowid, so inserts append at its end.
  {
    version: 6,
    sql: "CREATE INDEX records_search_key ON records (id, time, connection_id, stream, deleted)",
  },
  // Field-path change stamps (core/stamps.ts): NULL stamps mean no update since the last
  // (re)creation or deletion, so existing rows need no backfill: their base is their current
  // version and emitted_at. The partial index lists only updated rows, which a projected grant's
  // changes feed orders by their visible version.
  {
    version: 7,
    sql: `
      ALTER TABLE records ADD COLUMN stamps TEXT;
      ALTER TABLE records ADD COLUMN base_version INTEGER;
      ALTER TABLE records ADD COLUMN base_emitted_at TEXT;
      CREATE INDEX records_stream_stamped ON records (stream, base_version, version) WHERE stamps IS NOT NULL;
    `,
  },
  // The versions updated rows' stamps hold, findable by version: a projected grant's changes page
  // reads only the rows with an event (creation, base or stamp) in its version window, so paging
  // costs the page, not every updated row after the position (seen-sql.ts). Backfilled.
  {
    version: 8,
    sql: `
      CREATE TABLE stamp_events (
        version INTEGER PRIMARY KEY,
        record_row INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        stream TEXT NOT NULL
      );
      CREATE INDEX stamp_events_row ON stamp_events (record_row);
      CREATE INDEX stamp_events_stream ON stamp_events (stream, version);
      INSERT INTO stamp_events (version, record_row, stream)
        SELECT DISTINCT json_extract(s.value, '$[0]'), r.id, r.stream
        FROM records r, json_each(r.stamps) s WHERE r.stamps IS NOT NULL;
    `,
  },
  // Live records per (connection, stream), kept by ingest in the batch's transaction, so the
  // schema index's record counts cost a lookup instead of a count over every record (~200 ms at
  // 1M). A connection's counters go with it. Backfilled.
  {
    version: 9,
    sql: `
      CREATE TABLE stream_counts (
        connection_id TEXT NOT NULL REFERENCES connections(connection_id) ON DELETE CASCADE,
        stream TEXT NOT NULL,
        live INTEGER NOT NULL,
        PRIMARY KEY (connection_id, stream)
      ) WITHOUT ROWID;
      INSERT INTO stream_counts (connection_id, stream, live)
        SELECT connection_id, stream, count(*) FROM records WHERE deleted = 0 GROUP BY connection_id, stream;
    `,
  },
  // Sign-in backoff and OAuth rate windows, shared by every worker process on this file.
  { version: 10, sql: THROTTLES_TABLE_SQL },
  // Issue 18: search tables hold pdpp's analysed terms (core/search-analysis.ts: stems, folded
  // diacritics) instead of lowercased words; every stream is indexed again.
  { version: 11, sql: "", run: reindexAnalyzed },
  // Issue 19: a text of one chunk is stored once, in its text_fields row (text-store.ts); texts
  // written before keep their text_chunks rows, which reads still find.
  { version: 12, sql: "ALTER TABLE text_fields ADD COLUMN text TEXT" },
  // Issue 17 (hosted throughput): text_fields becomes a rowid table. Since 12 its rows hold whole
  // texts (up to 65,536 code points), and a WITHOUT ROWID table's row is its B-tree key: every key
  // comparison of a seek read the overflow pages of the text it passed, so the text_fields read of
  // a 10-record page took 0.9-1.7 ms instead of 0.07-0.14 (5,000-record bench home), a third of a
  // query_records call's CPU. In a rowid table the (record_row, path) key lives in its own index
  // and the texts stay in the table's leaves. Same columns, same statements; a write is two B-tree
  // inserts instead of one (the layout before 12 took three).
  {
    version: 13,
    sql: `
      CREATE TABLE text_fields_rows (
        record_row INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        size_chars INTEGER NOT NULL,
        digest TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        text TEXT,
        PRIMARY KEY (record_row, path)
      );
      INSERT INTO text_fields_rows (record_row, path, size_chars, digest, chunk_count, text)
        SELECT record_row, path, size_chars, digest, chunk_count, text FROM text_fields;
      DROP TABLE text_fields;
      ALTER TABLE text_fields_rows RENAME TO text_fields;
    `,
  },
];

/** Apply every migration newer than the database, each in its own transaction. */
export function migrate(sqlite: SqliteDb): void {
  const db = sqlite.raw;
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
  );
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      if (migration.sql) db.exec(migration.sql);
      migration.run?.(sqlite);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        new Date().toISOString(),
      );
    }).immediate();
  }
}
