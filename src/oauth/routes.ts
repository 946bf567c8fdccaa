// Mounts the OAuth authorization server on the RS app: discovery metadata, /authorize, /token,
// /register (RFC 7591) and /revoke (RFC 7009). The consent page itself is owner-web's
// (/consent/<pending id>), which answers through ./pending.ts.
import type { Context, Hono } from "hono";
import { PdppError } from "../core/errors.js";
import { readBodyText } from "../rs/body.js";
import { clientAddress } from "../rs/client-address.js";
import type { RsEnv } from "../rs/env.js";
import { errorPage, handleAuthorize } from "./authorize.js";
import { CimdResolver } from "./cimd.js";
import { MAX_REGISTRATION_BYTES, RegistrationError, validateRegistration } from "./clients.js";
import { noStore, OAuthFailure, oauthEndpoint } from "./form.js";
import { authorizationServerMetadata, OAUTH_PATHS } from "./metadata.js";
import type { Resolve } from "./pinned-fetch.js";
import { RateLimiter } from "./rate-limit.js";
import { handleRevoke } from "./revoke.js";
import { handleToken } from "./token.js";

export interface OAuthOptions {
  /** Tests and local development only: accept http://127.0.0.1… client_id metadata URLs. */
  allowLoopbackClientIds?: boolean;
  /** Tests only: the DNS resolver of client metadata document fetches. */
  cimdResolve?: Resolve;
  /** Registrations per minute, per caller address and overall (defaults 20 and 60). */
  registrationsPerMinute?: { perKey: number; total: number };
}

async function register(c: Context<RsEnv>, limiter: RateLimiter): Promise<Response> {
  return oauthEndpoint(c, async () => {
    if (!(await limiter.allow(c.get("deps").store, clientAddress(c))))
      throw new OAuthFailure(
        "too_many_requests",
        "too many client registrations; try again in a minute.",
        429,
      );
    let text: string;
    try {
      text = await readBodyText(c.req.raw, MAX_REGISTRATION_BYTES);
    } catch (error) {
      if (error instanceof PdppError && error.code === "payload_too_large")
        throw new OAuthFailure("invalid_client_metadata", "a registration is limited to 16 KiB.", 413);
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthFailure("invalid_client_metadata", "the registration body must be JSON.");
    }
    try {
      const client = validateRegistration(body);
      await c.get("deps").store.putOAuthClient(client);
      noStore(c);
      return c.json(client.metadata, 201);
    } catch (error) {
      if (error instanceof RegistrationError) throw new OAuthFailure(error.code, error.message);
      throw error;
    }
  });
}

export function registerOAuth(app: Hono<RsEnv>, options: OAuthOptions = {}): void {
  const cimd = new CimdResolver({
    allowLoopbackHttp: options.allowLoopbackClientIds === true,
    resolve: options.cimdResolve,
  });
  const limiter = new RateLimiter("oauth-register", {
    perKey: options.registrationsPerMinute?.perKey ?? 20,
    total: options.registrationsPerMinute?.total ?? 60,
    windowMs: 60_000,
  });
  // Each /authorize request stores a pending row (swept after 10 minutes): bound the rate.
  const authorizeLimiter = new RateLimiter("oauth-authorize", { perKey: 60, total: 300, windowMs: 60_000 });
  const metadata = (c: Context<RsEnv>) => c.json(authorizationServerMetadata(c.get("deps").publicUrl));
  app.get(OAUTH_PATHS.serverMetadata, metadata);
  app.get(OAUTH_PATHS.authorize, async (c) =>
    (await authorizeLimiter.allow(c.get("deps").store, clientAddress(c)))
      ? handleAuthorize(c, cimd)
      : errorPage(c, "too many authorization requests; try again in a minute.", 429),
  );
  app.post(OAUTH_PATHS.token, handleToken);
  app.post(OAUTH_PATHS.register, (c) => register(c, limiter));
  app.post(OAUTH_PATHS.revoke, handleRevoke);
}
