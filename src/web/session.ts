// Owner browser sessions and one-time sign-in links: random secrets handed out once, stored only
// as SHA-256 hashes, each with an expiry; CSRF tokens are HMACs of the secret the cookie holds.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { hashToken } from "../core/ids.js";
import type { Store } from "../store/store.js";

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SIGNIN_LINK_TTL_MS = 10 * 60 * 1000;
/** The pre-session cookie that ties the sign-in forms' CSRF tokens to one browser. */
export const PRESESSION_TTL_MS = 60 * 60 * 1000;

const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Cookie names: the `__Host-` prefix (Secure, Path=/, no Domain) whenever the cookie is Secure. */
export function cookieNames(secure: boolean): { session: string; presession: string } {
  return secure
    ? { session: "__Host-pdpp_session", presession: "__Host-pdpp_signin" }
    : { session: "pdpp_session", presession: "pdpp_signin" };
}

export function isWellFormedSecret(value: string | undefined): value is string {
  return value !== undefined && SECRET_RE.test(value);
}

/** The CSRF token of forms shown to the holder of `secret` (a session or pre-session cookie). */
export function csrfToken(secret: string, purpose: "session" | "signin"): string {
  return createHmac("sha256", secret).update(`pdpp-csrf-v1:${purpose}`).digest("base64url");
}

export function csrfMatches(secret: string, purpose: "session" | "signin", sent: unknown): boolean {
  if (typeof sent !== "string") return false;
  const expected = Buffer.from(csrfToken(secret, purpose));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Start a session; the returned secret goes into the cookie and nowhere else. */
export async function createSession(store: Store, now = new Date()): Promise<string> {
  const secret = newSecret();
  await store.putOwnerSecret({
    id_hash: hashToken(secret),
    kind: "session",
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
  });
  return secret;
}

/** True when the cookie's secret names a live session. */
export async function sessionIsLive(
  store: Store,
  secret: string | undefined,
  now = new Date(),
): Promise<boolean> {
  if (!isWellFormedSecret(secret)) return false;
  const found = await store.getOwnerSecret(hashToken(secret), "session");
  return found !== null && Date.parse(found.expires_at) > now.getTime();
}

export async function endSession(store: Store, secret: string): Promise<void> {
  if (isWellFormedSecret(secret)) await store.takeOwnerSecret(hashToken(secret), "session");
}

/** A one-time sign-in link token (printed by `pdpp console`), valid for SIGNIN_LINK_TTL_MS. */
export async function createSignInLink(store: Store, now = new Date()): Promise<string> {
  const secret = newSecret();
  await store.putOwnerSecret({
    id_hash: hashToken(secret),
    kind: "signin_link",
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SIGNIN_LINK_TTL_MS).toISOString(),
  });
  return secret;
}

/** Use a sign-in link: true once for a live link; replayed, expired or unknown links are false. */
export async function consumeSignInLink(store: Store, token: unknown, now = new Date()): Promise<boolean> {
  if (typeof token !== "string" || !isWellFormedSecret(token)) return false;
  const found = await store.takeOwnerSecret(hashToken(token), "signin_link");
  return found !== null && Date.parse(found.expires_at) > now.getTime();
}
