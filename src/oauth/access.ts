// OAuth codes and tokens: random, prefixed, stored only as SHA-256 hashes, bound to one grant, one
// client and one resource (this server's /mcp). An access token is a client token of its grant:
// the RS checks it on every request, so revoking the grant (console, /revoke, a replay) bites on
// the very next call.
// Where it is accepted: POST /mcp, and the /v1 read routes (the hosted /mcp reads through them
// in-process with the caller's bearer, and it is the same grant under the same enforcement);
// /v1/owner/* refuses it with 403 owner_only like any client token. It must carry this server's
// /mcp as its resource: the same store served under another public URL refuses it.
import { randomBytes } from "node:crypto";
import { PdppError } from "../core/errors.js";
import { hashToken } from "../core/ids.js";
import type { AuthInfo } from "../rs/env.js";
import type { OAuthTokenRecord, Store } from "../store/store.js";

export const ACCESS_TOKEN_PREFIX = "pdpp_at_";
export const REFRESH_TOKEN_PREFIX = "pdpp_rt_";
export const CODE_PREFIX = "pdpp_ac_";

/** Lifetimes: short access tokens (revocation also bites at once), refresh rotated on each use. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const CODE_TTL_SECONDS = 300;

const KIND_PREFIX = {
  code: CODE_PREFIX,
  access: ACCESS_TOKEN_PREFIX,
  refresh: REFRESH_TOKEN_PREFIX,
} as const;
const KIND_TTL = {
  code: CODE_TTL_SECONDS,
  access: ACCESS_TOKEN_TTL_SECONDS,
  refresh: REFRESH_TOKEN_TTL_SECONDS,
};

export interface IssueBinding {
  grantId: string;
  clientId: string;
  resource: string;
  scope: string | null;
  /** Codes only. */
  redirectUri?: string;
  codeChallenge?: string;
}

/** Mint one secret of `kind`, store its hash, and return the secret (shown once, never stored). */
export async function issueSecret(
  store: Store,
  kind: OAuthTokenRecord["kind"],
  binding: IssueBinding,
  now = new Date(),
): Promise<string> {
  const secret = `${KIND_PREFIX[kind]}${randomBytes(32).toString("base64url")}`;
  await store.putOAuthToken({
    token_hash: hashToken(secret),
    kind,
    grant_id: binding.grantId,
    client_id: binding.clientId,
    resource: binding.resource,
    redirect_uri: binding.redirectUri ?? null,
    code_challenge: binding.codeChallenge ?? null,
    scope: binding.scope,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + KIND_TTL[kind] * 1000).toISOString(),
    used_at: null,
  });
  return secret;
}

/** The stored record of a secret of `kind`, or null (wrong prefix, unknown, or another kind). */
export async function findSecret(
  store: Store,
  kind: OAuthTokenRecord["kind"],
  secret: string,
): Promise<OAuthTokenRecord | null> {
  if (!secret.startsWith(KIND_PREFIX[kind]) || secret.length > 512) return null;
  const record = await store.getOAuthToken(hashToken(secret));
  return record && record.kind === kind ? record : null;
}

function invalid(message: string): PdppError {
  return new PdppError("invalid_token", message);
}

/**
 * The bearer of an OAuth access token. Every failure is a 401 (never 403), so an MCP client
 * starts a fresh authorization instead of giving up: unknown, expired, another audience, or a
 * grant that was revoked or has expired.
 */
export async function authenticateAccessToken(
  store: Store,
  token: string,
  options: { resource: string; now: Date },
): Promise<AuthInfo> {
  // Token, grant and catalog generation in one lookup (one round trip on Postgres).
  const found =
    token.startsWith(KIND_PREFIX.access) && token.length <= 512
      ? await store.lookupAccessToken(hashToken(token))
      : null;
  const record = found?.token?.kind === "access" ? found.token : null;
  if (!found || !record) throw invalid("the access token is not valid here; authorize again.");
  if (Date.parse(record.expires_at) <= options.now.getTime())
    throw new PdppError("token_expired", "the access token has expired; refresh it or authorize again.");
  if (record.resource !== options.resource)
    throw invalid("the access token was issued for another resource; authorize again for this server.");
  const grant = found.grant;
  if (!grant || grant.revoked_at !== null)
    throw invalid("the grant behind this access token was revoked by its owner; authorize again.");
  if (grant.expires_at !== null && Date.parse(grant.expires_at) <= options.now.getTime())
    throw new PdppError("token_expired", "the grant behind this access token has expired; authorize again.");
  const { token_hash: _hidden, ...publicGrant } = grant;
  return {
    bearer: { kind: "client", grant: publicGrant },
    grantId: grant.grant_id,
    clientName: grant.client_name,
    ...(found.catalogGeneration === undefined ? {} : { catalogGeneration: found.catalogGeneration }),
  };
}
