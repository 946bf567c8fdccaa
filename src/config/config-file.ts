// config.json of a home ({ database }) and the choice of database: flag, then env, then config.
import { existsSync, readFileSync } from "node:fs";
import { PdppError } from "../core/errors.js";
import { homePaths } from "./home.js";
import { writeSecretFile } from "./secret-file.js";

export interface HomeConfig {
  /** "sqlite" (the embedded default, <home>/pdpp.db) or a postgres:// URL. */
  database: string;
}

export const DEFAULT_CONFIG: HomeConfig = { database: "sqlite" };

export function readHomeConfig(home: string): HomeConfig | null {
  const path = homePaths(home).config;
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new PdppError(
      "invalid_request",
      `${path} is not valid JSON (${(error as Error).message}); fix or delete it.`,
    );
  }
  const database = (parsed as { database?: unknown } | null)?.database;
  if (database !== undefined && typeof database !== "string") {
    throw new PdppError("invalid_request", `${path}: "database" must be "sqlite" or a postgres:// URL.`);
  }
  return { database: checkDatabase(database ?? "sqlite") };
}

/** Written 0600: a Postgres URL in it may carry a password. */
export function writeHomeConfig(home: string, config: HomeConfig): void {
  writeSecretFile(homePaths(home).config, `${JSON.stringify(config, null, 2)}\n`);
}

/** Validate a database setting: "sqlite" or a postgres:// (postgresql://) URL. */
export function checkDatabase(value: string): string {
  if (value === "sqlite" || /^postgres(ql)?:\/\//.test(value)) return value;
  throw new PdppError(
    "invalid_request",
    `database must be "sqlite" or a postgres:// URL, got "${redactUrl(value)}".`,
  );
}

/** The database a command should use: --database, then $PDPP_DATABASE_URL, then config.json, then sqlite. */
export function chooseDatabase(
  home: string,
  options: { flag?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const env = options.env ?? process.env;
  if (options.flag) return checkDatabase(options.flag);
  if (env.PDPP_DATABASE_URL) return checkDatabase(env.PDPP_DATABASE_URL);
  return readHomeConfig(home)?.database ?? DEFAULT_CONFIG.database;
}

/** A database URL safe to print: the password (if any) replaced by ***. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]+:)[^@]*@/i, "$1***@");
}
