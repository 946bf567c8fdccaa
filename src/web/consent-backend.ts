// The consent page's view of the OAuth authorization server (src/oauth owns the protocol): read a
// pending authorization, and answer it with the owner's grant or a denial.
import type { RsDeps } from "../rs/env.js";

export interface PendingAuthorizationView {
  id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  redirectHost: string;
  requestedScope: string | null;
  resource: string;
  expiresAt: string;
}

/** The body of POST /v1/owner/grants: what the owner chose on the consent page. */
export interface GrantInput {
  client_name: string;
  purpose: string;
  expires_at: string | null;
  streams: {
    stream: string;
    connector_key: string;
    connections: string[] | "all";
    fields: string[] | "all";
    time_range: { since: string | null; until: string | null } | null;
  }[];
}

export interface ConsentBackend {
  get(deps: RsDeps, id: string): Promise<PendingAuthorizationView | null>;
  /** Creates the grant and the authorization code; answers where to send the browser. */
  approve(deps: RsDeps, id: string, grant: GrantInput): Promise<{ redirectTo: string }>;
  /** access_denied back to the client. */
  deny(deps: RsDeps, id: string): Promise<{ redirectTo: string }>;
}
