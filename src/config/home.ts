// Where a pdpp home lives and the files inside it: --home, then $PDPP_HOME, then ./.pdpp.
import { resolve } from "node:path";

export const DEFAULT_HOME = ".pdpp";

/** The absolute home directory: an explicit flag wins over $PDPP_HOME, which wins over ./.pdpp. */
export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen =
    flag && flag.length > 0 ? flag : env.PDPP_HOME && env.PDPP_HOME.length > 0 ? env.PDPP_HOME : DEFAULT_HOME;
  return resolve(chosen);
}

/** The files of a home; only these names are ever written there. */
export function homePaths(home: string): {
  config: string;
  ownerToken: string;
  sqlite: string;
  importState: string;
} {
  return {
    config: resolve(home, "config.json"),
    ownerToken: resolve(home, "owner-token"),
    sqlite: resolve(home, "pdpp.db"),
    /** Per-connection memory of log files already imported (see importers/file-state.ts). */
    importState: resolve(home, "import-state"),
  };
}
