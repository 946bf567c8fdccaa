// `pdpp serve`'s HTTP server: the RS app with the hosted MCP endpoint, on @hono/node-server.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { PdppError } from "./core/errors.js";
import { createHostedMcpHandler } from "./mcp/hosted.js";
import { createApp } from "./rs/app.js";
import { releaseWhenIdle } from "./server-idle.js";
import type { Store } from "./store/store.js";

/** Quiet time after the last request before memory is given back. */
const IDLE_RELEASE_MS = 5000;

export interface StartServerOptions {
  store: Store;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** The URL clients reach the server at, when it differs from the bind address (reverse proxy). */
  publicUrl?: string;
  /** Extra Host names accepted besides loopback (DNS-rebinding protection). */
  allowedHosts?: string[];
  /** Proxies trusted to name the client in X-Forwarded-For (`--trust-proxy`). */
  trustProxy?: string[];
}

export interface RunningServer {
  /** The local URL the server listens on, e.g. http://127.0.0.1:7662 */
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  // The app is built once the port is known (port 0 picks one), so its public URL is exact; the
  // hosted MCP handler dispatches to that same app in-process.
  let app: ReturnType<typeof createApp> | undefined;
  // After a burst of requests, a few quiet seconds give the page cache and heap back (server-idle.ts).
  const store = options.store;
  const idle = releaseWhenIdle({ quietMs: IDLE_RELEASE_MS, release: () => store.releaseMemory?.() });
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve(
      {
        // The node bindings ride along as env: the owner sign-in throttle keys on the peer address.
        fetch: async (request: Request, env: unknown) => {
          if (!app) return new Response("starting", { status: 503 });
          idle.begin();
          try {
            return await app.fetch(request, env);
          } finally {
            idle.end();
          }
        },
        hostname: options.host,
        port: options.port,
      },
      () => resolve(started as Server),
    ) as Server;
    started.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(options.host)}:${port}`;
  const mcp = createHostedMcpHandler({
    rsFetch: (request, env) => {
      if (!app) throw new Error("the RS app is not ready");
      return app.fetch(request, env);
    },
  });
  app = createApp({
    store: options.store,
    publicUrl: options.publicUrl ?? url,
    allowedHosts: options.allowedHosts,
    trustProxy: options.trustProxy,
    bindHost: options.host,
    mcp,
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        idle.stop();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Turn the usual listen failures into one actionable user error. */
function listenError(error: NodeJS.ErrnoException, options: StartServerOptions): Error {
  const where = `${options.host}:${options.port}`;
  if (error.code === "EADDRINUSE") {
    return new PdppError(
      "invalid_request",
      `${where} is already in use; pass --port with another port (0 picks a free one).`,
    );
  }
  if (error.code === "EACCES")
    return new PdppError("invalid_request", `not allowed to listen on ${where}; use a port above 1023.`);
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
    return new PdppError("invalid_request", `cannot bind ${options.host}: no such local address.`);
  }
  return error;
}

/** The host part of a URL for a bind address: wildcard binds are reached over loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
