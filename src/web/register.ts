// Mounts the owner web app on the RS app: sign-in, the console and the OAuth consent page. Only on
// hosts the RS already accepts (its Host/Origin check runs first, for every route).
import type { Hono } from "hono";
import type { RsEnv } from "../rs/env.js";
import type { ConsentBackend } from "./consent-backend.js";
import { registerConsent } from "./consent-routes.js";
import { registerConsole } from "./console-routes.js";
import { SignInGuard } from "./signin-guard.js";
import { registerSignIn } from "./signin-routes.js";

/** Without an authorization server every consent id is unknown (the page answers 404). */
const NO_AUTHORIZATION_SERVER: ConsentBackend = {
  get: async () => null,
  approve: async () => {
    throw new Error("no authorization server");
  },
  deny: async () => {
    throw new Error("no authorization server");
  },
};

export interface OwnerWebOptions {
  /** The OAuth authorization server's pending authorizations; without it there is no consent page. */
  consent?: ConsentBackend;
  /** The sign-in throttle's clock (tests move it instead of waiting). */
  now?: () => number;
}

export function registerOwnerWeb(app: Hono<RsEnv>, options: OwnerWebOptions = {}): void {
  registerSignIn(app, new SignInGuard(options.now));
  registerConsole(app);
  registerConsent(app, options.consent ?? NO_AUTHORIZATION_SERVER);
}
