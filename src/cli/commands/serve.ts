// `pdpp serve`: the RS (/v1) and the hosted MCP endpoint (/mcp) over HTTP until SIGINT/SIGTERM.
import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { homePaths } from "../../config/home.js";
import { readOwnerToken } from "../../config/owner-token.js";
import { PdppError } from "../../core/errors.js";
import { hashToken } from "../../core/ids.js";
import { compileTrustProxy } from "../../rs/client-address.js";
import { startServer } from "../../server.js";
import { openStoreAt } from "../../store/open.js";
import type { CliContext } from "../context.js";
import { runCluster, tellPrimary } from "../serve-cluster.js";
import { collect } from "../table.js";

interface ServeOptions {
  host: string;
  port: string;
  publicUrl?: string;
  allowedHost?: string[];
  trustProxy?: string[];
  workers?: string;
}

export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) {
    throw new PdppError("invalid_request", `--workers must be an integer from 1 to 256, got "${value}".`);
  }
  return n;
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
    .option(
      "--trust-proxy <addr>",
      "a reverse proxy whose X-Forwarded-For names the client, for sign-in throttles and rate limits: an address, a CIDR range, or loopback (repeatable)",
      collect,
    )
    .option("--workers <n>", "processes serving the one port (default: the number of cores)")
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
      const workers = parseWorkers(options.workers);
      compileTrustProxy(options.trustProxy ?? []); // one clear line for a bad value, before any worker starts
      const publicUrl = options.publicUrl?.replace(/\/+$/, "");
      if (cluster.isWorker) return serveWorker({ home, context, options, port, publicUrl });
      // Migrations and the owner token happen once, before any worker opens the store.
      const opened = await openStoreAt(home, { databaseUrl: context.databaseUrl });
      await opened.store.putOwnerToken(hashToken(ownerToken));
      const database = opened.database === "sqlite" ? "sqlite" : "postgres";
      const banner = (url: string, processes: number) => {
        const base = publicUrl ?? url;
        process.stdout.write(
          [
            `pdpp serving ${home} (${database}${processes > 1 ? `, ${processes} workers` : ""})`,
            `url:         ${url}`,
            `rs:          ${base}/v1`,
            `mcp:         ${base}/mcp  (Streamable HTTP; Authorization: Bearer <client token>)`,
            `owner token: ${homePaths(home).ownerToken}`,
            "press Ctrl-C to stop",
            "",
          ].join("\n"),
        );
      };
      if (workers > 1) {
        await opened.close();
        await runCluster({ workers, onReady: (url) => banner(url, workers), stopSignal: waitForSignal() });
        process.stdout.write("pdpp stopped\n");
        return;
      }
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({
          store: opened.store,
          host: options.host,
          port,
          publicUrl,
          allowedHosts: options.allowedHost,
          trustProxy: options.trustProxy,
        });
      } catch (error) {
        await opened.close();
        throw error;
      }
      banner(server.url, 1);
      await waitForSignal();
      await server.close();
      await opened.close();
      process.stdout.write("pdpp stopped\n");
    });
}

/** One worker of `--workers N`: its own store and app on the shared port, until told to stop. */
async function serveWorker(args: {
  home: string;
  context: CliContext;
  options: ServeOptions;
  port: number;
  publicUrl: string | undefined;
}): Promise<void> {
  const stopped = waitForSignal();
  const opened = await openStoreAt(args.home, { databaseUrl: args.context.databaseUrl });
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      store: opened.store,
      host: args.options.host,
      port: args.port,
      publicUrl: args.publicUrl,
      allowedHosts: args.options.allowedHost,
      trustProxy: args.options.trustProxy,
    });
  } catch (error) {
    await opened.close();
    tellPrimary({ type: "failed", message: (error as Error).message });
    process.exitCode = 1;
    process.disconnect?.();
    return;
  }
  tellPrimary({ type: "listening", url: server.url });
  await stopped;
  // Ctrl-C reaches the workers and the primary, which then also sends SIGTERM: a second signal
  // must not cut the graceful close (it flushes the access log).
  const ignore = () => {};
  process.on("SIGINT", ignore);
  process.on("SIGTERM", ignore);
  await server.close();
  await opened.close();
  // The IPC channel to the primary would keep this process alive.
  process.disconnect?.();
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
