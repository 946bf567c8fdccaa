// Hosted Streamable HTTP MCP (POST /mcp): stateless — a fresh server and transport per request,
// JSON responses, the RS reached in-process with the caller's own client token.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { PdppError } from "../core/errors.js";
import { OWNER_TOKEN_PREFIX } from "../core/ids.js";
import { InProcessRsClient, type RsFetch } from "./rs-client.js";
import { createPdppMcpServer } from "./server.js";

export interface HostedMcpContext {
  token: string;
  publicUrl: string;
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
  return async (request, ctx) => {
    // The RS mount already refuses owner tokens; this keeps the adapter safe when mounted elsewhere.
    if (ctx.token.startsWith(OWNER_TOKEN_PREFIX)) return refuse();
    const rs = new InProcessRsClient(options.rsFetch, ctx.token, ctx.publicUrl);
    const server = createPdppMcpServer({ rs, providerUrl: ctx.publicUrl });
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
