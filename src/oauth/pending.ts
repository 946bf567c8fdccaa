// The interface between the OAuth protocol (this module) and the owner's consent page (owner-web).
// Stable contract:
//   getPendingAuthorization(deps, id) → PendingAuthorization | null   (null: unknown or expired)
//   approveAuthorization(deps, id, choice) → { redirectTo, grantId }
//     `choice` is the owner's grant choice, the body of POST /v1/owner/grants without client_name
//     ({ streams, purpose?, expires_at? }); it is validated exactly like that route (a PdppError
//     400/404 leaves the pending authorization untouched so the form can be fixed). Approval
//     creates the grant (client_name = the client's name), answers the pending authorization
//     (single use), and issues a single-use code bound to the grant, the PKCE challenge, the
//     redirect URI and the resource. redirectTo carries code, state and iss (RFC 9207).
//   denyAuthorization(deps, id) → { redirectTo }   with error=access_denied, state and iss.
// approve/deny throw PdppError authorization_not_found (404) once the pending authorization is
// answered or expired. The caller must have checked the owner's session and CSRF token: these
// functions trust their caller.
import { PdppError } from "../core/errors.js";
import { prepareGrant } from "../rs/grant-create.js";
import type { OAuthPendingRecord, Store } from "../store/store.js";
import { issueSecret } from "./access.js";
import { issuer } from "./metadata.js";
import { redirectHostOf, withQuery } from "./redirect-uri.js";

/** What the functions need: RsDeps satisfies it (c.get("deps") in a route). */
export interface OAuthDeps {
  store: Store;
  publicUrl: string;
}

export interface PendingAuthorization {
  id: string;
  clientId: string;
  /** The client's self-declared name (DCR or its metadata document): show it as claimed. */
  clientName: string;
  redirectUri: string;
  /** Where approval sends the browser: the redirect URI's host (or custom scheme). */
  redirectHost: string;
  /** The `scope` the client asked for, verbatim, or null. pdpp grants are chosen by the owner. */
  requestedScope: string | null;
  resource: string;
  expiresAt: string;
}

const PENDING_ID_RE = /^pa_[A-Za-z0-9_-]{22}$/;

function notFound(): PdppError {
  return new PdppError(
    "authorization_not_found",
    "this authorization request was already answered or has expired; start again from the application.",
  );
}

async function livePending(store: Store, id: string, now: Date): Promise<OAuthPendingRecord | null> {
  if (!PENDING_ID_RE.test(id)) return null;
  const pending = await store.getOAuthPending(id);
  if (!pending || Date.parse(pending.expires_at) <= now.getTime()) return null;
  return pending;
}

/** Answer it exactly once: whoever deletes it first wins; a late or expired one is not found. */
async function takePending(store: Store, id: string, now: Date): Promise<OAuthPendingRecord> {
  const taken = PENDING_ID_RE.test(id) ? await store.takeOAuthPending(id) : null;
  if (!taken || Date.parse(taken.expires_at) <= now.getTime()) throw notFound();
  return taken;
}

export async function getPendingAuthorization(
  deps: OAuthDeps,
  id: string,
): Promise<PendingAuthorization | null> {
  const pending = await livePending(deps.store, id, new Date());
  if (!pending) return null;
  return {
    id: pending.pending_id,
    clientId: pending.client_id,
    clientName: pending.client_name,
    redirectUri: pending.redirect_uri,
    redirectHost: redirectHostOf(pending.redirect_uri),
    requestedScope: pending.scope,
    resource: pending.resource,
    expiresAt: pending.expires_at,
  };
}

export async function approveAuthorization(
  deps: OAuthDeps,
  id: string,
  choice: unknown,
): Promise<{ redirectTo: string; grantId: string }> {
  const { store } = deps;
  const now = new Date();
  const pending = await livePending(store, id, now);
  if (!pending) throw notFound();
  // Validate before answering, so a bad choice leaves the request open for a corrected form.
  const { grant } = await prepareGrant(store, choice, { clientName: pending.client_name });
  const taken = await takePending(store, id, now);
  await store.createGrant(grant);
  const code = await issueSecret(
    store,
    "code",
    {
      grantId: grant.grant_id,
      clientId: taken.client_id,
      resource: taken.resource,
      scope: taken.scope,
      redirectUri: taken.redirect_uri,
      codeChallenge: taken.code_challenge,
    },
    now,
  );
  const redirectTo = withQuery(taken.redirect_uri, { code, state: taken.state, iss: issuer(deps.publicUrl) });
  return { redirectTo, grantId: grant.grant_id };
}

export async function denyAuthorization(deps: OAuthDeps, id: string): Promise<{ redirectTo: string }> {
  const taken = await takePending(deps.store, id, new Date());
  const redirectTo = withQuery(taken.redirect_uri, {
    error: "access_denied",
    error_description: "the owner denied the request.",
    state: taken.state,
    iss: issuer(deps.publicUrl),
  });
  return { redirectTo };
}
