// Hosted Streamable HTTP MCP (POST /mcp): stateless — a fresh server and transport per request,
// JSON responses, the RS reached in-process with the caller's own client token.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { PdppError } from "../core/errors.js";
import { hashToken, OWNER_TOKEN_PREFIX } from "../core/ids.js";
import { InProcessRsClient, type RsFetch } from "./rs-client.js";
import { StreamSchemaCache } from "./schema-cache.js";
import { createPdppMcpServer } from "./server.js";

export interface HostedMcpContext {
  token: string;
  publicUrl: string;
}

const MAX_BEARERS = 256;

/**
 * Schema rows per bearer, shared by the per-request servers of one handler: without it every
 * hosted fetch and query_records paid a /v1/schema call. Keyed by token hash (a grant sees its
 * own rows only); a revoked token gains nothing from it, since every data read still goes
 * through the RS. Least recently used bearers are dropped first.
 */
function bearerSchemaCaches(): (token: string) => StreamSchemaCache {
  const caches = new Map<string, StreamSchemaCache>();
  return (token) => {
    const key = hashToken(token);
    const cache = caches.get(key) ?? new StreamSchemaCache();
    caches.delete(key); // re-inserted below: Map order is the LRU order
    if (caches.size >= MAX_BEARERS) caches.delete(caches.keys().next().value as string);
    caches.set(key, cache);
    return cache;
  };
}

export type HostedMcpHandler = (request: Request, ctx: HostedMcpContext) => Promise<Response>;

function refuse(): Response {
  const error = new PdppError(
    "owner_token_refused",
    "/mcp refuses the owner token; use a client token from pdpp grant create.",
  );
  return Response.json({ error: error.toBody() }, { status: error.status });
}

/** Clients that send only `Accept: application/json` still get a JSON answer. */
async function tolerantAccept(request: Request): Promise<Request> {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", "application/json, text/event-stream");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
  return new Request(request.url, { method: request.method, headers, body });
}

export function createHostedMcpHandler(options: { rsFetch: RsFetch }): HostedMcpHandler {
  const schemasFor = bearerSchemaCaches();
  return async (request, ctx) => {
    // The RS mount already refuses owner tokens; this keeps the adapter safe when mounted elsewhere.
    if (ctx.token.startsWith(OWNER_TOKEN_PREFIX)) return refuse();
    const rs = new InProcessRsClient(options.rsFetch, ctx.token, ctx.publicUrl);
    const server = createPdppMcpServer({ rs, providerUrl: ctx.publicUrl, schemas: schemasFor(ctx.token) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(await tolerantAccept(request));
    } finally {
      // JSON responses are complete once handleRequest resolves; free the per-request server.
      void server.close();
    }
  };
}
