// `pdpp serve`: the RS (/v1) and the hosted MCP endpoint (/mcp) over HTTP until SIGINT/SIGTERM.
import type { Command } from "commander";
import { homePaths } from "../../config/home.js";
import { readOwnerToken } from "../../config/owner-token.js";
import { PdppError } from "../../core/errors.js";
import { hashToken } from "../../core/ids.js";
import { startServer } from "../../server.js";
import { openStoreAt } from "../../store/open.js";
import type { CliContext } from "../context.js";
import { collect } from "../table.js";

interface ServeOptions {
  host: string;
  port: string;
  publicUrl?: string;
  allowedHost?: string[];
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new PdppError("invalid_request", `--port must be an integer from 0 to 65535, got "${value}".`);
  }
  return port;
}

export function register(program: Command, context: CliContext): void {
  program
    .command("serve")
    .description("serve the resource server (/v1) and hosted MCP (/mcp) over HTTP")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--port <port>", "port to listen on (0 picks a free one)", "7662")
    .option("--public-url <url>", "the URL clients use when behind a reverse proxy")
    .option("--allowed-host <host>", "extra Host name to accept (repeatable)", collect)
    .action(async (options: ServeOptions) => {
      const home = context.home;
      const ownerToken = readOwnerToken(home);
      if (!ownerToken) {
        throw new PdppError(
          "invalid_request",
          `no pdpp home at ${home}; run \`pdpp init\` first or pass --home.`,
        );
      }
      const port = parsePort(options.port);
      const publicUrl = options.publicUrl?.replace(/\/+$/, "");
      const opened = await openStoreAt(home, { databaseUrl: context.databaseUrl });
      await opened.store.putOwnerToken(hashToken(ownerToken));
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({
          store: opened.store,
          host: options.host,
          port,
          publicUrl,
          allowedHosts: options.allowedHost,
        });
      } catch (error) {
        await opened.close();
        throw error;
      }
      const base = publicUrl ?? server.url;
      process.stdout.write(
        [
          `pdpp serving ${home} (${opened.database === "sqlite" ? "sqlite" : "postgres"})`,
          `url:         ${server.url}`,
          `rs:          ${base}/v1`,
          `mcp:         ${base}/mcp  (Streamable HTTP; Authorization: Bearer <client token>)`,
          `owner token: ${homePaths(home).ownerToken}`,
          "press Ctrl-C to stop",
          "",
        ].join("\n"),
      );
      await waitForSignal();
      await server.close();
      await opened.close();
      process.stdout.write("pdpp stopped\n");
    });
}

/** Resolve on the first SIGINT or SIGTERM (the server then closes gracefully). */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
