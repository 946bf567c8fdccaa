// `pdpp init`: create a home (config, store with migrations, owner token file) idempotently.
import { mkdirSync } from "node:fs";
import type { Command } from "commander";
import { chooseDatabase, readHomeConfig, redactUrl, writeHomeConfig } from "../../config/config-file.js";
import { homePaths } from "../../config/home.js";
import { ensureOwnerToken } from "../../config/owner-token.js";
import { PdppError } from "../../core/errors.js";
import { hashToken } from "../../core/ids.js";
import { openStoreAt } from "../../store/open.js";
import type { CliContext } from "../context.js";

export interface InitResult {
  home: string;
  database: string;
  ownerTokenCreated: boolean;
}

/** Create or re-open a home; a second run keeps the owner token (and config unless --database). */
export async function initHome(home: string, options: { databaseUrl?: string } = {}): Promise<InitResult> {
  // The home holds the owner token and (on SQLite) every record: owner-only, like ~/.ssh.
  makeHomeDir(home);
  const database = chooseDatabase(home, { flag: options.databaseUrl });
  // Open (and migrate) the database before recording it, so a wrong URL leaves config.json as it was.
  const opened = await openStoreAt(home, { databaseUrl: database });
  try {
    if (options.databaseUrl || !readHomeConfig(home)) writeHomeConfig(home, { database });
    const { token, created } = ensureOwnerToken(home);
    await opened.store.putOwnerToken(hashToken(token));
    return { home, database, ownerTokenCreated: created };
  } finally {
    await opened.close();
  }
}

function makeHomeDir(home: string): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOTDIR" || code === "EEXIST"
        ? "a part of that path is a file, not a directory"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : (error as Error).message;
    throw new PdppError("invalid_request", `cannot create the pdpp home ${home}: ${why}; pass --home <dir>.`);
  }
}

export function register(program: Command, context: CliContext): void {
  program
    .command("init")
    .description("create a pdpp home: config.json, the store (migrated) and the owner token file (0600)")
    .action(async () => {
      const result = await initHome(context.home, { databaseUrl: context.databaseUrl });
      const paths = homePaths(result.home);
      const where = result.database === "sqlite" ? `sqlite (${paths.sqlite})` : redactUrl(result.database);
      const tokenNote = result.ownerTokenCreated ? "created, mode 0600" : "kept, mode 0600";
      process.stdout.write(
        [
          `pdpp home:   ${result.home}`,
          `config:      ${paths.config}`,
          `database:    ${where}`,
          `owner token: ${paths.ownerToken} (${tokenNote}; only its hash is in the store)`,
          "",
          "next: pdpp import <format> <file> …, then pdpp grant create … --setup (prints each client's config)",
          "",
        ].join("\n"),
      );
    });
}
