// Types shared by the RS app's middleware and routes: the Hono env and the per-app dependencies.
import type { Bearer } from "../core/grant-scope.js";
import type { Store } from "../store/store.js";
import type { TrustProxy } from "./client-address.js";

export interface RsDeps {
  store: Store;
  publicUrl: string;
  /** The HMAC key of every cursor this server issues (the store keeps it stable). */
  cursorSecret(): Promise<string>;
  /** Search ranks exactly up to this many matches, else over the newest this many. */
  searchRankWindow: number;
  /** Which peers are proxies whose X-Forwarded-For names the client (`--trust-proxy`). */
  trustProxy: TrustProxy;
}

/** Who is calling, resolved from the bearer token on this very request. */
export interface AuthInfo {
  bearer: Bearer;
  grantId: string | null;
  clientName: string | null;
  /** The store's catalog generation, read in the same statement as the bearer (Postgres). */
  catalogGeneration?: string;
}

/** What a data read reports to the access log (filled in by the route). */
export interface AccessNote {
  route: string;
  stream: string | null;
  connectionId: string | null;
  recordCount: number;
  bytes: number;
}

export interface RsEnv {
  Variables: {
    requestId: string;
    deps: RsDeps;
    auth: AuthInfo;
    access: AccessNote | undefined;
  };
}
