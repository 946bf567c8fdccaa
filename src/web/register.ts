// Mounts the owner web app on the RS app: sign-in, the console and the OAuth consent page. Only on
// hosts the RS already accepts (its Host/Origin check runs first, for every route).
import type { Hono } from "hono";
import { approveAuthorization, denyAuthorization, getPendingAuthorization } from "../oauth/pending.js";
import type { RsEnv } from "../rs/env.js";
import type { ConsentBackend } from "./consent-backend.js";
import { registerConsent } from "./consent-routes.js";
import { registerConsole } from "./console-routes.js";
import { registerFavicon } from "./favicon.js";
import { SignInGuard } from "./signin-guard.js";
import { registerSignIn } from "./signin-routes.js";

/** The OAuth authorization server's side (src/oauth/pending.ts), which owns the protocol. */
const AUTHORIZATION_SERVER: ConsentBackend = {
  get: (deps, id) => getPendingAuthorization(deps, id),
  // The grant's client name is the client's own (as registered); the form's copy is for display.
  approve: (deps, id, { client_name: _shown, ...choice }) => approveAuthorization(deps, id, choice),
  deny: (deps, id) => denyAuthorization(deps, id),
};

export interface OwnerWebOptions {
  /** Where pending authorizations come from and go to; tests pass a recording double. */
  consent?: ConsentBackend;
  /** The sign-in throttle's clock (tests move it instead of waiting). */
  now?: () => number;
}

export function registerOwnerWeb(app: Hono<RsEnv>, options: OwnerWebOptions = {}): void {
  registerSignIn(app, new SignInGuard(options.now));
  registerConsole(app);
  registerConsent(app, options.consent ?? AUTHORIZATION_SERVER);
  registerFavicon(app);
}
