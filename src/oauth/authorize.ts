// GET /authorize (OAuth 2.1 authorization code, PKCE S256 only, RFC 8707 resource). A valid
// request becomes a pending authorization (single-use, 10 minutes) and the browser goes to the
// owner's consent page. Every error before consent is a plain page, never a redirect: a client
// anyone can register (or name by a metadata URL) would otherwise turn /authorize on the owner's
// host into an open redirector (RFC 9700 §4.11.2). Only the owner's answer goes back to the client.
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { RsEnv } from "../rs/env.js";
import type { CimdResolver } from "./cimd.js";
import { resolveClient } from "./clients.js";
import { mcpResource, OAUTH_PATHS } from "./metadata.js";
import { matchRedirectUri, redirectUriProblem } from "./redirect-uri.js";

export const PENDING_TTL_SECONDS = 600;
const CHALLENGE_RE = /^[A-Za-z0-9._~-]{43,128}$/;
const SINGLE_PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource",
] as const;

/** The plain error page for a request that cannot be sent back to the client. */
export function errorPage(c: Context<RsEnv>, message: string, status: 400 | 429 = 400): Response {
  c.header("Cache-Control", "no-store");
  c.header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  c.header("X-Content-Type-Options", "nosniff");
  return c.text(
    `Authorization request refused: ${message}\n\nReturn to the application and try again.\n`,
    status,
  );
}

export async function handleAuthorize(c: Context<RsEnv>, cimd: CimdResolver): Promise<Response> {
  const { store, publicUrl } = c.get("deps");
  const query = new URL(c.req.url).searchParams;
  for (const name of SINGLE_PARAMS) {
    if (query.getAll(name).length > 1) return errorPage(c, `the ${name} parameter is repeated.`);
  }
  const clientId = query.get("client_id");
  if (!clientId) return errorPage(c, "client_id is missing.");
  const resolved = await resolveClient(store, cimd, clientId);
  if ("problem" in resolved) return errorPage(c, `client_id: ${resolved.problem}.`);
  const { client } = resolved;
  const requestedRedirect = query.get("redirect_uri");
  if (!requestedRedirect) return errorPage(c, "redirect_uri is missing.");
  const redirectUri = matchRedirectUri(requestedRedirect, client.redirect_uris);
  if (!redirectUri) return errorPage(c, "redirect_uri is not registered for this client.");
  // Registered before today's rules (or served by a metadata document): checked again here.
  const problem = redirectUriProblem(redirectUri);
  if (problem) return errorPage(c, `redirect_uri ${problem}.`);

  // The redirect URI is the client's own, but the client is not yet trusted by the owner: errors
  // stay on this page (the error code is named for the developer).
  const state = query.get("state");
  const back = (error: string, description: string) => errorPage(c, `${error}: ${description}`);
  if (state !== null && state.length > 1024)
    return back("invalid_request", "state is longer than 1024 characters.");
  if (query.get("response_type") !== "code")
    return back("unsupported_response_type", "only response_type=code is supported.");
  const challenge = query.get("code_challenge");
  if (!challenge) return back("invalid_request", "PKCE is required: send code_challenge (S256).");
  if (query.get("code_challenge_method") !== "S256")
    return back("invalid_request", "code_challenge_method must be S256 (plain is not supported).");
  if (!CHALLENGE_RE.test(challenge)) return back("invalid_request", "code_challenge is malformed.");
  const resource = query.get("resource") ?? mcpResource(publicUrl);
  if (resource !== mcpResource(publicUrl))
    return back("invalid_target", `this server issues tokens only for ${mcpResource(publicUrl)}.`);
  const scope = query.get("scope");
  if (scope !== null && scope.length > 1000)
    return back("invalid_scope", "scope is longer than 1000 characters.");

  const now = new Date();
  const pendingId = `pa_${randomBytes(16).toString("base64url")}`;
  await store.putOAuthPending({
    pending_id: pendingId,
    client_id: client.client_id,
    client_name: client.client_name,
    redirect_uri: redirectUri,
    state,
    scope: scope || null,
    resource,
    code_challenge: challenge,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + PENDING_TTL_SECONDS * 1000).toISOString(),
  });
  c.header("Cache-Control", "no-store");
  return c.redirect(`${OAUTH_PATHS.consent}/${pendingId}`, 302);
}
