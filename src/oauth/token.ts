// POST /token: authorization_code (PKCE S256, exact redirect_uri, resource, single-use code) and
// refresh_token (rotated on every use). A code or refresh token that comes back after its use
// revokes the grant it was issued for: every token of that family stops working (RFC 9700 §4.14).
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { RsEnv } from "../rs/env.js";
import type { OAuthTokenRecord, Store, StoredGrant } from "../store/store.js";
import { ACCESS_TOKEN_TTL_SECONDS, findSecret, issueSecret } from "./access.js";
import { noStore, OAuthFailure, oauthEndpoint, readForm, required } from "./form.js";
import { mcpResource } from "./metadata.js";

const TOKEN_PARAMS = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "client_id",
  "refresh_token",
  "resource",
  "scope",
  "client_secret",
] as const;
const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;

function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

const badGrant = (message: string) => new OAuthFailure("invalid_grant", message);

/** The record's grant, still live; otherwise invalid_grant. */
async function liveGrant(store: Store, record: OAuthTokenRecord, now: Date): Promise<StoredGrant> {
  const grant = await store.getGrant(record.grant_id);
  if (!grant || grant.revoked_at !== null) throw badGrant("the grant behind this request was revoked.");
  if (grant.expires_at !== null && Date.parse(grant.expires_at) <= now.getTime())
    throw badGrant("the grant behind this request has expired.");
  return grant;
}

/**
 * The token's scope as granted (RFC 6749 §3.3), never what the client asked for: the owner's grant
 * decides, so the answer names its streams as `connector:stream` words (the words a later
 * authorization request may name to pre-select them on the consent page).
 */
export function grantedScope(grant: StoredGrant): string {
  return [...new Set(grant.streams.map((s) => `${s.connector_key}:${s.stream}`))].sort().join(" ");
}

/** Checks shared by both grant types: client, expiry, resource. */
function checkBinding(record: OAuthTokenRecord, form: Map<string, string>, now: Date): void {
  if (record.client_id !== required(form, "client_id")) throw badGrant("it was issued to another client.");
  if (Date.parse(record.expires_at) <= now.getTime()) throw badGrant("it has expired.");
  const resource = form.get("resource");
  if (resource !== undefined && resource !== record.resource)
    throw new OAuthFailure("invalid_target", "resource differs from the one that was authorized.");
}

async function revokeFamily(store: Store, record: OAuthTokenRecord, now: Date): Promise<void> {
  await store.revokeGrant(record.grant_id, now.toISOString());
}

async function issuePair(
  c: Context<RsEnv>,
  record: OAuthTokenRecord,
  options: { grant: StoredGrant; now: Date },
): Promise<Response> {
  const { store } = c.get("deps");
  const { grant, now } = options;
  const scope = grantedScope(grant);
  const binding = {
    grantId: record.grant_id,
    clientId: record.client_id,
    resource: record.resource,
    scope,
  };
  const accessToken = await issueSecret(store, "access", binding, now);
  const refreshToken = await issueSecret(store, "refresh", binding, now);
  noStore(c);
  return c.json({
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    scope,
  });
}

async function exchangeCode(c: Context<RsEnv>, form: Map<string, string>, now: Date): Promise<Response> {
  const { store, publicUrl } = c.get("deps");
  const record = await findSecret(store, "code", required(form, "code"));
  if (!record) throw badGrant("the authorization code is not valid.");
  checkBinding(record, form, now);
  if (record.redirect_uri !== required(form, "redirect_uri"))
    throw badGrant("redirect_uri differs from the authorization request's.");
  const verifier = form.get("code_verifier");
  if (!verifier) throw new OAuthFailure("invalid_request", "code_verifier is missing (PKCE is required).");
  if (!VERIFIER_RE.test(verifier) || !record.code_challenge || !pkceMatches(verifier, record.code_challenge))
    throw badGrant("code_verifier does not match the code_challenge.");
  if (record.resource !== mcpResource(publicUrl))
    throw new OAuthFailure("invalid_target", "unknown resource.");
  // Single use, atomically: a code that comes back revokes what it issued.
  if (!(await store.markOAuthTokenUsed(record.token_hash, now.toISOString()))) {
    await revokeFamily(store, record, now);
    throw badGrant("the authorization code was already used; its tokens are revoked.");
  }
  return issuePair(c, record, { grant: await liveGrant(store, record, now), now });
}

async function refresh(c: Context<RsEnv>, form: Map<string, string>, now: Date): Promise<Response> {
  const { store } = c.get("deps");
  const record = await findSecret(store, "refresh", required(form, "refresh_token"));
  if (!record) throw badGrant("the refresh token is not valid.");
  checkBinding(record, form, now);
  if (!(await store.markOAuthTokenUsed(record.token_hash, now.toISOString()))) {
    // A rotated refresh token came back: someone holds a copy. Revoke the whole family.
    await revokeFamily(store, record, now);
    throw badGrant("the refresh token was already used; the authorization is revoked.");
  }
  return issuePair(c, record, { grant: await liveGrant(store, record, now), now });
}

/**
 * Every client here is public (PKCE protects the code), but a client that still sends HTTP Basic
 * is understood: its user name is the client_id; a secret, never issued, proves nothing.
 */
function basicClientId(header: string | undefined): string | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? "");
  if (!m) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  try {
    return decodeURIComponent(colon >= 0 ? decoded.slice(0, colon) : decoded) || null;
  } catch {
    return null;
  }
}

export function handleToken(c: Context<RsEnv>): Promise<Response> {
  return oauthEndpoint(c, async () => {
    const form = await readForm(c, TOKEN_PARAMS);
    const basicId = basicClientId(c.req.header("authorization"));
    if (basicId !== null && !form.has("client_id")) form.set("client_id", basicId);
    const now = new Date();
    const grantType = required(form, "grant_type");
    if (grantType === "authorization_code") return exchangeCode(c, form, now);
    if (grantType === "refresh_token") return refresh(c, form, now);
    throw new OAuthFailure(
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token.",
    );
  });
}
