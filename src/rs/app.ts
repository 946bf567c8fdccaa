// The RS HTTP app (20-rs-api.md): middleware (request id, host check, limits, bearer auth, access
// log), every /v1 route, the hosted /mcp mount and the OAuth protected-resource metadata.
import { randomFillSync } from "node:crypto";
import { Hono } from "hono";
import { mcpResource } from "../oauth/metadata.js";
import { type OAuthOptions, registerOAuth } from "../oauth/routes.js";
import type { Store } from "../store/store.js";
import { type OwnerWebOptions, registerOwnerWeb } from "../web/register.js";
import { accessLogMiddleware } from "./access-log.js";
import { authenticate, requireOwner } from "./auth.js";
import { compileTrustProxy } from "./client-address.js";
import type { RsEnv } from "./env.js";
import { notFound, onError } from "./errors.js";
import { allowedHostNames, checkHost } from "./host-check.js";
import { checkUrlLimits } from "./params.js";
import { registerAggregate } from "./routes/aggregate.js";
import { registerBlob } from "./routes/blob.js";
import { registerFieldWindow } from "./routes/field-window.js";
import { registerMcpMount } from "./routes/mcp-mount.js";
import { registerOwnerConnections } from "./routes/owner-connections.js";
import { registerOwnerGrants } from "./routes/owner-grants.js";
import { registerOwnerIngest } from "./routes/owner-ingest.js";
import { registerRecords } from "./routes/records.js";
import { registerSchema } from "./routes/schema.js";
import { DEFAULT_RANK_WINDOW, registerSearch } from "./routes/search.js";
import { registerToken } from "./routes/token.js";

export interface AppOptions {
  store: Store;
  /** Base URL used in `url`s and WWW-Authenticate resource_metadata (e.g. http://127.0.0.1:7662). */
  publicUrl?: string;
  /** Extra accepted Host names (DNS-rebinding protection); loopback names always accepted when bindHost is loopback. */
  allowedHosts?: string[];
  bindHost?: string; // default "127.0.0.1"
  /** Hosted MCP: called for POST /mcp after the bearer was checked to be a valid CLIENT token. */
  /** The body was read under the 8 MiB limit while it streamed in; the request's own body is spent. */
  mcp?: (request: Request, context: { token: string; publicUrl: string; body: string }) => Promise<Response>;
  /** The OAuth authorization server of /mcp (src/oauth); options for tests and development. */
  oauth?: OAuthOptions;
  /** Search ranks exactly up to this many matches (default 10,000); tests lower it to reach the window. */
  searchRankWindow?: number;
  /**
   * Proxies trusted to name the client in X-Forwarded-For (addresses, CIDR ranges, `loopback`…),
   * for the sign-in throttle and rate limits; default none: the TCP peer is the client.
   */
  trustProxy?: string[];
  /** The owner web app (sign-in, console, consent); tests pass a clock for the sign-in throttle. */
  ownerWeb?: OwnerWebOptions;
}

const CURSOR_SECRET_NAME = "cursor-hmac";

/** Random bytes for request ids, drawn 8 at a time (one randomFillSync per 512 requests). */
const idPool = Buffer.alloc(4096);
let idAt = idPool.length;

/** `req_` and 16 random hex digits. */
function newRequestId(): string {
  if (idAt + 8 > idPool.length) {
    randomFillSync(idPool);
    idAt = 0;
  }
  const id = `req_${idPool.toString("hex", idAt, idAt + 8)}`;
  idAt += 8;
  return id;
}

export function createApp(options: AppOptions): Hono<RsEnv> {
  const bindHost = options.bindHost ?? "127.0.0.1";
  const publicUrl = (
    options.publicUrl ?? `http://${bindHost.includes(":") ? `[${bindHost}]` : bindHost}:7662`
  ).replace(/\/+$/, "");
  const allowed = allowedHostNames({ allowedHosts: options.allowedHosts ?? [], publicUrl });
  let secret: Promise<string> | undefined;
  const deps = {
    store: options.store,
    publicUrl,
    cursorSecret: () => {
      secret ??= options.store.secret(CURSOR_SECRET_NAME);
      return secret;
    },
    searchRankWindow: options.searchRankWindow ?? DEFAULT_RANK_WINDOW,
    trustProxy: compileTrustProxy(options.trustProxy ?? []),
  };

  const app = new Hono<RsEnv>();
  app.onError(onError);
  app.notFound(notFound);

  app.use("*", async (c, next) => {
    const requestId = newRequestId();
    c.set("requestId", requestId);
    c.set("deps", deps);
    c.header("request-id", requestId);
    checkHost(c.req.raw, allowed);
    checkUrlLimits(c.req.url);
    await next();
    if (c.res.headers.get("request-id") !== requestId) {
      // Responses built elsewhere (the MCP transport) may carry immutable headers: copy them.
      const res = new Response(c.res.body, c.res);
      res.headers.set("request-id", requestId);
      c.res = undefined;
      c.res = res;
    }
  });

  app.use("/v1/*", accessLogMiddleware);
  app.use("/v1/*", async (c, next) => {
    c.set("auth", await authenticate(deps.store, c.req.raw, { resource: mcpResource(publicUrl) }));
    await next();
  });
  // Registered before any owner route, so no owner handler can run for a client token.
  app.use("/v1/owner/*", async (c, next) => {
    requireOwner(c.get("auth"));
    await next();
  });

  registerToken(app);
  registerSchema(app);
  registerRecords(app);
  registerFieldWindow(app);
  registerBlob(app);
  registerAggregate(app);
  registerSearch(app);
  registerOwnerConnections(app);
  registerOwnerIngest(app);
  registerOwnerGrants(app);
  registerMcpMount(app, { mcp: options.mcp });
  registerOAuth(app, options.oauth);
  registerOwnerWeb(app, options.ownerWeb);
  return app;
}
