// The hosted MCP mount: POST /mcp with a client token (owner tokens refused), GET/DELETE → 405,
// and RFC 9728 protected-resource metadata that 401s point to.
import type { Context, Hono } from "hono";
import { PdppError } from "../../core/errors.js";
import { mcpResource, protectedResourceMetadata } from "../../oauth/metadata.js";
import type { AppOptions } from "../app.js";
import { authenticateToken, bearerToken } from "../auth.js";
import { MAX_JSON_BODY_BYTES, readBodyText } from "../body.js";
import type { RsEnv } from "../env.js";
import { errorResponse } from "../errors.js";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

function metadata(c: Context<RsEnv>): Response {
  // pdpp serve is the OAuth authorization server of its own /mcp (src/oauth).
  return c.json(protectedResourceMetadata(c.get("deps").publicUrl));
}

async function handleMcp(c: Context<RsEnv>, options: { mcp: AppOptions["mcp"] }): Promise<Response> {
  const { store, publicUrl } = c.get("deps");
  let token: string;
  try {
    const raw = bearerToken(c.req.raw);
    if (raw === null)
      throw new PdppError("missing_token", "send Authorization: Bearer <client token> (pdpp grant create).");
    token = raw;
    const auth = await authenticateToken(store, token, { resource: mcpResource(publicUrl) });
    if (auth.bearer.kind === "owner") {
      throw new PdppError(
        "owner_token_refused",
        "/mcp refuses the owner token; use a client token from pdpp grant create.",
      );
    }
  } catch (err) {
    if (err instanceof PdppError && err.status === 401) {
      c.header("WWW-Authenticate", `Bearer resource_metadata="${publicUrl}${PROTECTED_RESOURCE_PATH}"`);
      return errorResponse(c, err);
    }
    throw err;
  }
  if (!options.mcp) throw new PdppError("route_not_found", "hosted MCP is not enabled on this server.");
  // The limit applies while the body streams in, declared length or not (a chunked upload is cut
  // off and cancelled at the limit, never buffered whole).
  const body = await readBodyText(c.req.raw, MAX_JSON_BODY_BYTES);
  const response = await options.mcp(c.req.raw, { token, publicUrl, body });
  // The answer carries its request-id from here, so app.ts need not copy it (a copy turns the
  // string body into a stream the server then reads chunk by chunk).
  try {
    response.headers.set("request-id", c.get("requestId"));
  } catch {
    // Immutable headers: app.ts copies the response and sets it there.
  }
  return response;
}

export function registerMcpMount(app: Hono<RsEnv>, options: { mcp: AppOptions["mcp"] }): void {
  app.get(PROTECTED_RESOURCE_PATH, metadata);
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, metadata);
  app.post("/mcp", (c) => handleMcp(c, options));
  const notAllowed = () => {
    throw new PdppError("method_not_allowed", "/mcp is stateless: use POST (no SSE stream, no sessions).");
  };
  app.get("/mcp", notAllowed);
  app.delete("/mcp", notAllowed);
}
