// `pdpp mcp`: run the MCP adapter over stdio with a client token, against a provider URL or a
// local store opened in-process. stdout is reserved for JSON-RPC.
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { readCredentials } from "../../config/credentials.js";
import { homePaths, resolveHome } from "../../config/home.js";
import { PdppError } from "../../core/errors.js";
import type { RsAppFetch } from "../../mcp/rs-client.js";
import { runStdioMcp, tokenFileHoldsOwnerToken } from "../../mcp/stdio.js";
import { createApp } from "../../rs/app.js";
import { openStoreAt } from "../../store/open.js";

interface McpOptions {
  providerUrl?: string;
  store?: string;
  tokenFile?: string;
}

export function register(program: Command): void {
  program
    .command("mcp")
    .description("run the MCP adapter over stdio for an agent (client token only; an owner token exits 77)")
    .option("--provider-url <url>", "RS base URL (default: $PDPP_PROVIDER_URL or the credentials file)")
    .option(
      "--store <dir>",
      "open this pdpp home in-process instead of calling a server (default: --home or $PDPP_HOME when given)",
    )
    .option(
      "--token-file <path>",
      "credentials file from `pdpp grant create --save` (used when $PDPP_TOKEN is unset)",
    )
    .addHelpText(
      "after",
      "\nThe client token comes from $PDPP_TOKEN or --token-file. stdout carries only JSON-RPC.\nExample: PDPP_TOKEN=pdpp_ct_… pdpp mcp --provider-url http://127.0.0.1:7662",
    )
    .action(async (options: McpOptions) => {
      let closeStore: (() => Promise<void>) | undefined;
      let rsFetch: RsAppFetch | undefined;
      // A credentials file saved for a local store names that store, so --token-file is enough.
      // An unreadable file or one holding an owner token is reported by runStdioMcp (exit 1 / 77).
      const savedStore =
        options.tokenFile && !options.providerUrl && !process.env.PDPP_PROVIDER_URL
          ? savedStoreOf(options.tokenFile)
          : undefined;
      // An explicit home (--home, $PDPP_HOME) is the store to open when no server was named; the
      // implicit ./.pdpp is not, since agents spawn this command from any working directory.
      const homeFlag = program.opts<{ home?: string }>().home;
      const explicitHome =
        !options.providerUrl && (homeFlag || (process.env.PDPP_HOME && !process.env.PDPP_PROVIDER_URL))
          ? resolveHome(homeFlag)
          : undefined;
      const storeDir = options.store ?? explicitHome ?? savedStore;
      if (storeDir) {
        // Opening creates a SQLite database; a mistyped path must not become a new, empty store.
        if (!existsSync(homePaths(storeDir).config)) {
          throw new PdppError(
            "invalid_request",
            `--store ${storeDir} is not a pdpp home (no config.json); pass the directory \`pdpp init\` created.`,
          );
        }
        const opened = await openStoreAt(storeDir);
        const app = createApp({ store: opened.store, bindHost: "127.0.0.1" });
        rsFetch = (request, env) => app.fetch(request, env);
        closeStore = () => opened.close();
      }
      const code = await runStdioMcp({
        providerUrl: options.providerUrl,
        tokenFile: options.tokenFile,
        rsFetch,
      });
      if (code !== null) {
        await closeStore?.();
        process.exitCode = code;
        return;
      }
      process.stdin.once("end", () => void closeStore?.());
    });
}

/** The pdpp home a credentials file names, if the file reads as client credentials. */
function savedStoreOf(tokenFile: string): string | undefined {
  if (tokenFileHoldsOwnerToken(tokenFile)) return undefined;
  try {
    return readCredentials(tokenFile).store;
  } catch {
    return undefined;
  }
}
