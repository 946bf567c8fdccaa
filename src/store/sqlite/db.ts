// The SQLite connection wrapper every module of the SQLite store shares: pragmas, UDFs and a
// prepared-statement cache (statements are compiled once per SQL text).
import Database from "better-sqlite3";
import { type Stamps, visibleStamp } from "../../core/stamps.js";
import { tryNormalizeTime } from "../../core/time.js";
import { bucketKey } from "../../core/time-buckets.js";
import type { TimeGranularity } from "../store.js";
import { migrate } from "./migrations.js";

export class SqliteDb {
  readonly raw: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    this.raw = new Database(path);
    this.raw.pragma("journal_mode = WAL");
    this.raw.pragma("foreign_keys = ON");
    this.raw.pragma("busy_timeout = 5000");
    this.raw.pragma("synchronous = NORMAL");
    this.raw.pragma("temp_store = MEMORY");
    this.raw.pragma("cache_size = -65536");
    // Deterministic JS helpers so SQL can compare and bucket times exactly as core code does.
    this.raw.function("pdpp_time", { deterministic: true }, (value: unknown) =>
      typeof value === "string" || typeof value === "number" ? tryNormalizeTime(value) : null,
    );
    this.raw.function(
      "pdpp_bucket",
      { deterministic: true },
      (time: unknown, granularity: unknown, zone: unknown) =>
        typeof time === "string" ? bucketKey(time, granularity as TimeGranularity, String(zone)) : null,
    );
    // A projected scope's view of a record's version / emitted_at (core/stamps.ts), for ordering
    // its changes feed and resolving its bookmarks in SQL. Paths arrive as a JSON array parameter.
    const pathsOf = new Map<string, string[]>();
    const seen = (version: number, emittedAt: string, stamps: unknown, base: unknown, paths: unknown) => {
      if (typeof stamps !== "string" || typeof paths !== "string") return { version, emittedAt };
      let list = pathsOf.get(paths);
      if (!list) {
        list = JSON.parse(paths) as string[];
        if (pathsOf.size > 256) pathsOf.clear();
        pathsOf.set(paths, list);
      }
      const [baseVersion, baseEmittedAt] = (base as [number, string] | null) ?? [null, null];
      return visibleStamp(
        { version, emittedAt, baseVersion, baseEmittedAt, stamps: JSON.parse(stamps) as Stamps },
        list,
      );
    };
    this.raw.function(
      "pdpp_seen_version",
      { deterministic: true },
      (version: unknown, stamps: unknown, baseVersion: unknown, paths: unknown) =>
        seen(Number(version), "", stamps, baseVersion === null ? null : [Number(baseVersion), ""], paths)
          .version,
    );
    this.raw.function(
      "pdpp_seen_emitted_at",
      { deterministic: true },
      (emittedAt: unknown, stamps: unknown, baseVersion: unknown, baseEmittedAt: unknown, paths: unknown) =>
        seen(
          0,
          String(emittedAt),
          stamps,
          baseVersion === null ? null : [Number(baseVersion), String(baseEmittedAt)],
          paths,
        ).emittedAt,
    );
    migrate(this);
  }

  /** A cached prepared statement for this SQL text. */
  stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.raw.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.statements.clear();
    this.raw.close();
  }
}
