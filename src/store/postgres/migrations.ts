// Versioned schema migrations for the Postgres store, applied in one transaction under an advisory lock.
import type pg from "pg";
import { OAUTH_TABLES_SQL } from "./oauth.js";
import { OWNER_WEB_TABLES_SQL } from "./owner-web.js";
import { inTransaction } from "./pool.js";
import { reindexAllStreams } from "./search-write.js";
import { THROTTLES_TABLE_SQL } from "./throttles.js";

interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work after the SQL, in the same transaction. */
  run?: (client: pg.PoolClient) => Promise<void>;
}

// Append only: a released migration is never edited. Record ids, streams, connection ids and ISO
// times are COLLATE "C" so every comparison and ORDER BY is byte order, exactly like SQLite.
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
CREATE TABLE secrets (name text PRIMARY KEY, value text NOT NULL);
CREATE TABLE manifests (connector_key text COLLATE "C" PRIMARY KEY, body text NOT NULL);
CREATE TABLE connections (
  connection_id text COLLATE "C" PRIMARY KEY,
  connector_key text COLLATE "C" NOT NULL,
  display_name text NOT NULL,
  created_at text NOT NULL
);
CREATE SEQUENCE record_version_seq;
CREATE TABLE records (
  rid bigserial PRIMARY KEY,
  connection_id text COLLATE "C" NOT NULL REFERENCES connections ON DELETE CASCADE,
  stream text COLLATE "C" NOT NULL,
  record_id text COLLATE "C" NOT NULL,
  emitted_at text NOT NULL,
  time text COLLATE "C",
  version bigint NOT NULL,
  digest text NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  payload jsonb NOT NULL,
  UNIQUE (connection_id, stream, record_id)
);
CREATE INDEX records_stream_time ON records (stream, time, connection_id, record_id);
CREATE INDEX records_version ON records (version);
CREATE TABLE text_fields (
  rid bigint NOT NULL REFERENCES records ON DELETE CASCADE,
  path text COLLATE "C" NOT NULL,
  size_chars bigint NOT NULL,
  digest text NOT NULL,
  chunk_count integer NOT NULL,
  PRIMARY KEY (rid, path)
);
CREATE TABLE text_chunks (
  rid bigint NOT NULL,
  path text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (rid, path, seq),
  FOREIGN KEY (rid, path) REFERENCES text_fields ON DELETE CASCADE
);
-- Uncompressed out-of-line storage lets substr() fetch only the slices it needs.
ALTER TABLE text_chunks ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE TABLE search_docs (
  rid bigint NOT NULL REFERENCES records ON DELETE CASCADE,
  field text COLLATE "C" NOT NULL,
  seg integer NOT NULL,
  tsv tsvector NOT NULL,
  PRIMARY KEY (rid, field, seg)
);
CREATE INDEX search_docs_tsv ON search_docs USING gin (tsv);
CREATE TABLE owner_tokens (token_hash text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE grants (
  grant_id text COLLATE "C" PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  body text NOT NULL,
  created_at text NOT NULL,
  revoked_at text
);
CREATE TABLE access_log (
  id bigserial PRIMARY KEY,
  at text NOT NULL,
  grant_id text,
  client_name text,
  route text NOT NULL,
  stream text,
  connection_id text,
  record_count integer NOT NULL,
  bytes bigint NOT NULL,
  status integer NOT NULL
);
CREATE INDEX access_log_grant ON access_log (grant_id, id);
-- A payload time that does not parse is no time at all (NULL), never an error mid-aggregate.
CREATE FUNCTION pdpp_try_time(value text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  RETURN value::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$fn$;
-- core/time.ts normalizeTime in SQL: ISO-8601 UTC with milliseconds, NULL when not a time.
CREATE FUNCTION pdpp_time(value text) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT to_char(pdpp_try_time(value) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$fn$;
`,
  },
  {
    version: 2,
    name: "search_lex",
    // One position-free tsvector of a record's distinct search words (parts > 1 only when the set
    // passes 512 KiB): AND across fields is one GIN probe, and walking newest-first tests a small
    // inline row instead of detoasting per-field vectors. Backfilled from search_docs.
    sql: `
CREATE TABLE search_lex (
  rid bigint NOT NULL REFERENCES records ON DELETE CASCADE,
  part integer NOT NULL,
  parts integer NOT NULL,
  stream text COLLATE "C" NOT NULL,
  connection_id text COLLATE "C" NOT NULL,
  tsv tsvector NOT NULL,
  PRIMARY KEY (rid, part)
);
WITH words AS (
  SELECT DISTINCT d.rid, u.lexeme FROM search_docs d CROSS JOIN LATERAL unnest(d.tsv) u
), sized AS (
  SELECT rid, lexeme,
         (sum(octet_length(lexeme) + 8) OVER (PARTITION BY rid ORDER BY lexeme) / 524288)::int AS chunk
  FROM words
), grouped AS (
  SELECT rid, chunk, array_to_tsvector(array_agg(lexeme)) AS tsv FROM sized GROUP BY rid, chunk
)
INSERT INTO search_lex (rid, part, parts, stream, connection_id, tsv)
SELECT g.rid, (dense_rank() OVER (PARTITION BY g.rid ORDER BY g.chunk) - 1)::int,
       (count(*) OVER (PARTITION BY g.rid))::int, r.stream, r.connection_id, g.tsv
FROM grouped g JOIN records r ON r.rid = g.rid;
CREATE INDEX search_lex_tsv ON search_lex USING gin (tsv);
CREATE INDEX search_lex_newest ON search_lex (stream, rid);
CREATE INDEX search_lex_multi ON search_lex (stream, rid) WHERE parts > 1;
ANALYZE search_lex;
`,
  },
  {
    version: 3,
    name: "time_nulls_first",
    // Sorts put null times lowest (ASC NULLS FIRST / DESC NULLS LAST): an index in that order is
    // walked either way for a page, where the default (NULLS LAST) order forced a full sort.
    // `deleted` rides along so counts and time buckets can be index-only scans.
    sql: `
CREATE INDEX records_stream_time_nf ON records (stream, time NULLS FIRST, connection_id, record_id)
  INCLUDE (deleted);
DROP INDEX records_stream_time;
`,
  },
  {
    version: 4,
    name: "oauth",
    // The OAuth authorization server's clients, pending authorizations and hashed codes/tokens.
    sql: OAUTH_TABLES_SQL,
  },
  {
    version: 5,
    name: "owner_web",
    // Owner web sign-in: the passphrase hash, sessions and one-time sign-in links (hashed).
    sql: OWNER_WEB_TABLES_SQL,
  },
  {
    version: 6,
    name: "search_lex_tagged",
    // Lexeme rows hold field-tagged words ('body:word', see search-index.ts taggedLexeme): matching
    // is restricted to a scope's granted fields and scored from this one vector per record.
    sql: `
TRUNCATE search_lex;
WITH words AS (
  SELECT DISTINCT d.rid, d.field || ':' || u.lexeme AS lexeme
  FROM search_docs d CROSS JOIN LATERAL unnest(d.tsv) u
  WHERE octet_length(d.field || ':' || u.lexeme) <= 2046
), sized AS (
  SELECT rid, lexeme,
         (sum(octet_length(lexeme) + 8) OVER (PARTITION BY rid ORDER BY lexeme) / 524288)::int AS chunk
  FROM words
), grouped AS (
  SELECT rid, chunk, array_to_tsvector(array_agg(lexeme)) AS tsv FROM sized GROUP BY rid, chunk
)
INSERT INTO search_lex (rid, part, parts, stream, connection_id, tsv)
SELECT g.rid, (dense_rank() OVER (PARTITION BY g.rid ORDER BY g.chunk) - 1)::int,
       (count(*) OVER (PARTITION BY g.rid))::int, r.stream, r.connection_id, g.tsv
FROM grouped g JOIN records r ON r.rid = g.rid;
ANALYZE search_lex;
`,
  },
  {
    version: 7,
    name: "search_lex_order",
    // A search ranks and orders its candidate window from the lexeme rows alone (issue 10): each
    // row carries the record's id and time, so no per-candidate join to records is needed (10k
    // primary-key lookups, or a merge join reading the whole records table, was most of a broad
    // query's time). Rebuilt in rid order so the newest-first walk reads neighbouring pages. The
    // GIN pending list is kept small: every search scans all of it (a full 4 MB list made a
    // one-match lookup 1–30 ms instead of 0.01 ms), and bulk ingest empties it (analyze.ts).
    sql: `
CREATE TABLE search_lex_next (
  rid bigint NOT NULL,
  part integer NOT NULL,
  parts integer NOT NULL,
  stream text COLLATE "C" NOT NULL,
  connection_id text COLLATE "C" NOT NULL,
  record_id text COLLATE "C" NOT NULL,
  time text COLLATE "C",
  tsv tsvector NOT NULL
);
INSERT INTO search_lex_next (rid, part, parts, stream, connection_id, record_id, time, tsv)
SELECT l.rid, l.part, l.parts, l.stream, l.connection_id, r.record_id, r.time, l.tsv
FROM search_lex l JOIN records r ON r.rid = l.rid
ORDER BY l.rid, l.part;
DROP TABLE search_lex;
ALTER TABLE search_lex_next RENAME TO search_lex;
ALTER TABLE search_lex ADD CONSTRAINT search_lex_pkey PRIMARY KEY (rid, part);
ALTER TABLE search_lex ADD CONSTRAINT search_lex_rid_fkey FOREIGN KEY (rid) REFERENCES records ON DELETE CASCADE;
CREATE INDEX search_lex_tsv ON search_lex USING gin (tsv) WITH (gin_pending_list_limit = 512);
CREATE INDEX search_lex_newest ON search_lex (stream, rid);
CREATE INDEX search_lex_multi ON search_lex (stream, rid) WHERE parts > 1;
ALTER INDEX search_docs_tsv SET (gin_pending_list_limit = 512);
-- A connection belongs to one connector, so (stream, connection) is far from independent; without
-- joint statistics a scope's rows were underestimated 5× and the planner sorted a whole stream
-- where walking its newest rows would do.
CREATE STATISTICS search_lex_scope (mcv) ON stream, connection_id FROM search_lex;
-- No parallel plans: a search's unneeded branch (behind a false one-time filter) still started
-- workers, ~15–140 ms on a loaded 2-core machine, for statements that read a few thousand rows.
ALTER TABLE search_lex SET (parallel_workers = 0);
ANALYZE search_lex;
`,
  },
  {
    version: 8,
    name: "change_stamps",
    // Field-path change stamps (core/stamps.ts): NULL stamps mean no update since the last
    // (re)creation or deletion, so existing rows need no backfill (their base is their current
    // version and emitted_at) and adding the nullable columns rewrites nothing. The partial index
    // lists only updated rows, which a projected grant's changes feed orders by the version it
    // observes; pdpp_seen_stamp is the newest stamp at or under one of a scope's paths.
    sql: `
ALTER TABLE records ADD COLUMN stamps jsonb, ADD COLUMN base_version bigint, ADD COLUMN base_emitted_at text;
CREATE INDEX records_stamped ON records (stream, base_version, version) WHERE stamps IS NOT NULL;
CREATE FUNCTION pdpp_seen_stamp(stamps jsonb, paths text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT s.value FROM jsonb_each(stamps) s
  WHERE EXISTS (SELECT 1 FROM unnest(paths) p WHERE s.key = p OR starts_with(s.key, p || '.'))
  ORDER BY (s.value ->> 0)::bigint DESC LIMIT 1
$fn$;
`,
  },
  {
    version: 9,
    name: "stamp_events",
    // The versions updated rows' stamps hold, findable by version: a projected grant's changes page
    // reads only the rows with an event (creation, base or stamp) in its version window, so paging
    // costs the page, not every updated row after the position (reads.ts). Backfilled.
    sql: `
CREATE TABLE stamp_events (
  version bigint PRIMARY KEY,
  rid bigint NOT NULL REFERENCES records ON DELETE CASCADE,
  stream text COLLATE "C" NOT NULL
);
CREATE INDEX stamp_events_rid ON stamp_events (rid);
CREATE INDEX stamp_events_stream ON stamp_events (stream, version);
INSERT INTO stamp_events (version, rid, stream)
SELECT DISTINCT (s.value ->> 0)::bigint, r.rid, r.stream
FROM records r CROSS JOIN LATERAL jsonb_each(r.stamps) s WHERE r.stamps IS NOT NULL;
`,
  },
  {
    version: 10,
    name: "catalog_generation",
    // A counter bumped in the same transaction as any write to manifests or connections (by
    // statement-level triggers, so no writer can forget it). The RS reads it in the same statement
    // as the bearer lookup and reuses its cached catalog only while the counter is unchanged.
    sql: `
CREATE TABLE catalog_generation (one boolean PRIMARY KEY DEFAULT true CHECK (one), gen bigint NOT NULL);
INSERT INTO catalog_generation (gen) VALUES (1);
CREATE FUNCTION pdpp_bump_catalog_generation() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE catalog_generation SET gen = gen + 1;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER manifests_catalog_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON manifests
  FOR EACH STATEMENT EXECUTE FUNCTION pdpp_bump_catalog_generation();
CREATE TRIGGER connections_catalog_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON connections
  FOR EACH STATEMENT EXECUTE FUNCTION pdpp_bump_catalog_generation();
`,
  },
  {
    version: 11,
    name: "search_lex_by_stream",
    // The lexeme rows are hash-partitioned by stream (issue 10): in one heap, a stream of small rows
    // filled the free space of other streams' pages (inserts take any page with room), so 99k
    // transaction rows of a 1M dataset lay ~3 to a page over 34k pages, and a search reading a
    // scope's matches read a page per match (11.7k buffers for 14k matches, ~100 ms of a 1M common
    // query's 150). Each partition holds its own streams' rows together; a search names its stream
    // by equality, so it reads one partition. 16 fixed partitions need no DDL when streams appear
    // (streams that share a partition are still correct, only less dense). Rebuilt in rid order.
    sql: `
CREATE TABLE search_lex_next (
  rid bigint NOT NULL,
  part integer NOT NULL,
  parts integer NOT NULL,
  stream text COLLATE "C" NOT NULL,
  connection_id text COLLATE "C" NOT NULL,
  record_id text COLLATE "C" NOT NULL,
  time text COLLATE "C",
  tsv tsvector NOT NULL
) PARTITION BY HASH (stream);
DO $do$ BEGIN
  FOR i IN 0..15 LOOP
    -- No parallel plans (see migration 7).
    EXECUTE format('CREATE TABLE search_lex_p%s PARTITION OF search_lex_next
                    FOR VALUES WITH (MODULUS 16, REMAINDER %s) WITH (parallel_workers = 0)', i, i);
  END LOOP;
END $do$;
INSERT INTO search_lex_next (rid, part, parts, stream, connection_id, record_id, time, tsv)
SELECT rid, part, parts, stream, connection_id, record_id, time, tsv FROM search_lex ORDER BY rid, part;
DROP TABLE search_lex;
ALTER TABLE search_lex_next RENAME TO search_lex;
-- A unique key of a partitioned table holds the partition key.
ALTER TABLE search_lex ADD CONSTRAINT search_lex_pkey PRIMARY KEY (rid, part, stream);
ALTER TABLE search_lex ADD CONSTRAINT search_lex_rid_fkey FOREIGN KEY (rid) REFERENCES records ON DELETE CASCADE;
CREATE INDEX search_lex_tsv ON search_lex USING gin (tsv) WITH (gin_pending_list_limit = 512);
CREATE INDEX search_lex_newest ON search_lex (stream, rid);
CREATE INDEX search_lex_multi ON search_lex (stream, rid) WHERE parts > 1;
-- Joint (stream, connection) statistics, per partition: a search plans against one (migration 7).
DO $do$ BEGIN
  FOR i IN 0..15 LOOP
    EXECUTE format('CREATE STATISTICS search_lex_p%s_scope (mcv) ON stream, connection_id FROM search_lex_p%s', i, i);
  END LOOP;
END $do$;
ANALYZE search_lex;
`,
  },
  {
    version: 12,
    name: "stream_counts",
    // Live records per (connection, stream), kept by ingest in the batch's transaction, so the
    // schema index's record counts cost a lookup instead of a count over every record. Backfilled.
    sql: `
CREATE TABLE stream_counts (
  connection_id text COLLATE "C" NOT NULL REFERENCES connections ON DELETE CASCADE,
  stream text COLLATE "C" NOT NULL,
  live bigint NOT NULL,
  PRIMARY KEY (connection_id, stream)
);
INSERT INTO stream_counts (connection_id, stream, live)
  SELECT connection_id, stream, count(*) FROM records WHERE NOT deleted GROUP BY connection_id, stream;
`,
  },
  {
    version: 13,
    name: "throttles",
    // Sign-in backoff and OAuth rate windows, shared by every worker and instance on this database.
    sql: THROTTLES_TABLE_SQL,
  },
  {
    version: 14,
    name: "search_analyzed",
    // Issue 18: search rows hold pdpp's analysed terms (core/search-analysis.ts: stems, folded
    // diacritics) instead of lowercased words; every stream is indexed again.
    sql: "",
    run: reindexAllStreams,
  },
  {
    version: 15,
    name: "search_df",
    // Issue 18 (Postgres 1M latency): how many lexeme rows of each (stream, connection) hold each
    // field-tagged term, kept exact by every writer of search_lex in the same transaction
    // (search-write.ts). A search reads it only to learn that a clause certainly has more matches
    // than it enumerates, and then walks to its newest window instead of counting 2,001 matches
    // (search-candidates.ts): it changes how matches are found, never which. Backfilled from the
    // lexeme rows; counts of a deleted connection go with it.
    sql: `
CREATE TABLE search_df (
  stream text COLLATE "C" NOT NULL,
  lexeme text COLLATE "C" NOT NULL,
  connection_id text COLLATE "C" NOT NULL REFERENCES connections ON DELETE CASCADE,
  n bigint NOT NULL,
  PRIMARY KEY (stream, lexeme, connection_id)
);
CREATE INDEX search_df_connection ON search_df (connection_id);
INSERT INTO search_df (stream, lexeme, connection_id, n)
  SELECT l.stream, u.lexeme, l.connection_id, count(*)
  FROM search_lex l CROSS JOIN LATERAL unnest(l.tsv) u
  GROUP BY l.stream, u.lexeme, l.connection_id;
ANALYZE search_df;
`,
  },
];

/**
 * Bring the schema on `search_path` up to date. Concurrent openers serialise on a transaction-level
 * advisory lock keyed by the schema, so a migration runs exactly once and never half-applies.
 */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('pdpp_migrations:' || current_schema()))");
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      if (migration.sql) await client.query(migration.sql);
      await migration.run?.(client);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}
