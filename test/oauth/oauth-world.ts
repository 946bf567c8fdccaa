// Test world for the OAuth server: the RS fixture with the hosted /mcp wired in-process, a fetch
// that routes to app.request(), and an in-memory OAuthClientProvider for the SDK's auth().
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { createHostedMcpHandler } from "../../src/mcp/hosted.js";
import { approveAuthorization } from "../../src/oauth/pending.js";
import type { AppOptions } from "../../src/rs/app.js";
import type { TestBackend } from "../helpers/backends.js";
import { type Fixture, setupFixture } from "../rs/harness.js";

export const PUBLIC_URL = "http://127.0.0.1:7662";
export const MCP_URL = `${PUBLIC_URL}/mcp`;
export const REDIRECT = "http://127.0.0.1:33418/callback";

export interface OAuthWorld {
  fx: Fixture;
  /** fetch() over the app, for SDK clients. */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  deps: { store: Fixture["store"]; publicUrl: string };
  cleanup(): Promise<void>;
}

export async function openOAuthWorld(
  backend: TestBackend,
  options: Partial<AppOptions> = {},
): Promise<OAuthWorld> {
  const opened = await backend.open();
  let app: Fixture["app"] | undefined;
  const mcp = createHostedMcpHandler({
    rsFetch: async (request, env) => (app as Fixture["app"]).fetch(request, env),
  });
  const fx = await setupFixture(opened.store, { publicUrl: PUBLIC_URL, mcp, ...options });
  app = fx.app;
  const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    return fx.app.fetch(request);
  };
  return { fx, fetch: fetchFn, deps: { store: fx.store, publicUrl: PUBLIC_URL }, cleanup: opened.cleanup };
}

/** An in-memory OAuth client (what an MCP host keeps on disk), recording the authorization URL. */
export class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirect = REDIRECT,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test MCP Client",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "state-xyz";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** GET the authorization URL on the app: the pending id from the consent redirect. */
export async function pendingIdFrom(world: OAuthWorld, authorizationUrl: URL): Promise<string> {
  const res = await world.fetch(authorizationUrl.href, { redirect: "manual" });
  assert.equal(res.status, 302, await res.text());
  const location = res.headers.get("location") ?? "";
  const m = /^\/consent\/(pa_[A-Za-z0-9_-]+)$/.exec(location);
  assert.ok(m, `redirected to ${location}`);
  return m[1];
}

/** The form-encoded POST the token and revocation endpoints take. */
export async function postForm(
  world: OAuthWorld,
  path: string,
  params: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: OAuth JSON answers are inspected dynamically
): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await world.fetch(`${PUBLIC_URL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

export const ONLY_CHAT = {
  streams: [{ stream: "messages", connector_key: "chat", connections: "all", fields: "all" }],
};

/** Register a public client by DCR; returns its client_id. */
export async function registerClient(
  world: OAuthWorld,
  redirectUris: string[] = [REDIRECT],
): Promise<string> {
  const res = await world.fetch(`${PUBLIC_URL}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Hostile Test",
      redirect_uris: redirectUris,
      token_endpoint_auth_method: "none",
    }),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { client_id: string }).client_id;
}

export const VERIFIER = `${"v".repeat(43)}-verifier_0123456789`;
export const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");

/** An /authorize URL with sane defaults; `overrides` replace (or, as null, drop) parameters. */
export function authorizeUrl(clientId: string, overrides: Record<string, string | null> = {}): string {
  const params: Record<string, string | null> = {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    state: "s1",
    resource: MCP_URL,
    ...overrides,
  };
  const url = new URL(`${PUBLIC_URL}/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.href;
}

/** Authorize and approve: the code (and grant) for `clientId`. */
export async function codeFor(
  world: OAuthWorld,
  clientId: string,
  overrides: Record<string, string | null> = {},
): Promise<{ code: string; grantId: string }> {
  const pendingId = await pendingIdFrom(world, new URL(authorizeUrl(clientId, overrides)));
  const { redirectTo, grantId } = await approveAuthorization(world.deps, pendingId, ONLY_CHAT);
  return { code: new URL(redirectTo).searchParams.get("code") as string, grantId };
}

/** Exchange a code with the default verifier and redirect URI. */
export function exchange(
  world: OAuthWorld,
  clientId: string,
  code: string,
  extra: Record<string, string> = {},
) {
  return postForm(world, "/token", {
    grant_type: "authorization_code",
    code,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    resource: MCP_URL,
    ...extra,
  });
}

/** POST /mcp tools/list with a bearer: the status says whether the token is accepted. */
export async function mcpStatus(world: OAuthWorld, token: string): Promise<number> {
  const res = await world.fetch(MCP_URL, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await res.text();
  return res.status;
}
