// Bearer authentication, run on every /v1 request so that revocation and expiry bite on the very
// next call. Tokens are only ever hashed; no error message echoes one.
import { PdppError } from "../core/errors.js";
import { CLIENT_TOKEN_PREFIX, hashToken } from "../core/ids.js";
import { ACCESS_TOKEN_PREFIX, authenticateAccessToken } from "../oauth/access.js";
import type { Store } from "../store/store.js";
import type { AuthInfo } from "./env.js";

const MAX_TOKEN_CHARS = 512;

/** The raw bearer token of a request, or null when no Authorization header is sent. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null || header.trim() === "") return null;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  if (!m || m[1].length > MAX_TOKEN_CHARS) {
    throw new PdppError(
      "invalid_token",
      "the Authorization header must be `Bearer <token>` with a pdpp token.",
    );
  }
  return m[1];
}

export interface AuthenticateOptions {
  /** This server's /mcp URL: the only audience an OAuth access token may carry here. */
  resource: string;
  now?: Date;
}

/** Resolve a token to its bearer; throws the 401/403 the spec names for each failure. */
export async function authenticateToken(
  store: Store,
  token: string,
  options: AuthenticateOptions,
): Promise<AuthInfo> {
  const now = options.now ?? new Date();
  // OAuth access tokens (src/oauth) resolve to the grant the owner chose on the consent page.
  if (token.startsWith(ACCESS_TOKEN_PREFIX))
    return authenticateAccessToken(store, token, { ...options, now });
  const hash = hashToken(token);
  // Client tokens are the common case on reads; owner tokens are checked first only when prefixed so.
  const found = await store.lookupBearer(hash, { checkOwner: !token.startsWith(CLIENT_TOKEN_PREFIX) });
  const generation =
    found.catalogGeneration === undefined ? {} : { catalogGeneration: found.catalogGeneration };
  if (found.owner) return { bearer: { kind: "owner" }, grantId: null, clientName: null, ...generation };
  const grant = found.grant;
  if (!grant)
    throw new PdppError(
      "invalid_token",
      "the bearer token is not valid here; ask the owner for a new grant.",
    );
  if (grant.revoked_at !== null) {
    throw new PdppError(
      "grant_revoked",
      "this grant was revoked by its owner; ask the owner for a new grant.",
    );
  }
  if (grant.expires_at !== null && Date.parse(grant.expires_at) <= now.getTime()) {
    throw new PdppError("token_expired", "this grant has expired; ask the owner for a new grant.");
  }
  const { token_hash: _hidden, ...publicGrant } = grant;
  return {
    bearer: { kind: "client", grant: publicGrant },
    grantId: grant.grant_id,
    clientName: grant.client_name,
    ...generation,
  };
}

export async function authenticate(
  store: Store,
  request: Request,
  options: AuthenticateOptions,
): Promise<AuthInfo> {
  const token = bearerToken(request);
  if (token === null) {
    throw new PdppError("missing_token", "send Authorization: Bearer <token> (an owner or client token).");
  }
  return authenticateToken(store, token, options);
}

export function requireOwner(auth: AuthInfo): void {
  if (auth.bearer.kind !== "owner") {
    throw new PdppError("owner_only", "this endpoint needs the owner token; client tokens only read.");
  }
}
