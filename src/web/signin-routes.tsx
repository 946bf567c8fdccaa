// Sign-in, one-time sign-in links and sign-out. Every form carries a CSRF token: before sign-in it
// is tied to a short-lived pre-session cookie, afterwards to the session itself.
import type { Hono } from "hono";
import { clientAddress } from "../rs/client-address.js";
import type { RsEnv } from "../rs/env.js";
import {
  clearCookie,
  readCookie,
  readForm,
  renderPage,
  safeNext,
  type WebContext,
  writeCookie,
} from "./http.js";
import { csrfRefusal, currentSession, requirePostSession, WebRefusal } from "./owner-gate.js";
import { verifyPassphrase } from "./passphrase.js";
import {
  consumeSignInLink,
  createSession,
  csrfMatches,
  csrfToken,
  endSession,
  isWellFormedSecret,
  newSecret,
} from "./session.js";
import type { SignInGuard } from "./signin-guard.js";
import { SignInLinkPage, SignInPage } from "./signin-pages.js";
import { webRoute } from "./web-route.js";

const FAILED =
  "Sign-in failed: the passphrase is not right, or none is set yet (run `pdpp owner passphrase`).";
const LINK_FAILED = "This sign-in link is not valid: it expired, was already used, or was never issued.";

/** The pre-session secret of this browser, created (and set as a cookie) when missing. */
function presession(c: WebContext): string {
  const existing = readCookie(c, "presession");
  if (isWellFormedSecret(existing)) return existing;
  const secret = newSecret();
  writeCookie(c, "presession", secret);
  return secret;
}

function checkSignInCsrf(c: WebContext, form: URLSearchParams): void {
  const pre = readCookie(c, "presession");
  if (!isWellFormedSecret(pre) || !csrfMatches(pre, "signin", form.get("_csrf"))) throw csrfRefusal();
}

function throttled(retryAfterMs: number): WebRefusal {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new WebRefusal(
    429,
    "Too many sign-in attempts",
    `Sign-in is paused for ${seconds} s after repeated failures. Wait, or run \`pdpp console\` for a one-time link.`,
    seconds,
  );
}

async function signedIn(c: WebContext, next: string): Promise<Response> {
  const secret = await createSession(c.get("deps").store);
  writeCookie(c, "session", secret);
  clearCookie(c, "presession");
  return c.redirect(next, 303);
}

export function registerSignIn(app: Hono<RsEnv>, guard: SignInGuard): void {
  app.get(
    "/signin",
    webRoute(async (c) => {
      const next = safeNext(c.req.query("next"));
      if (await currentSession(c)) return c.redirect(next, 303);
      const csrf = csrfToken(presession(c), "signin");
      return renderPage(c, {}, (nonce) => <SignInPage nonce={nonce} csrf={csrf} next={next} />);
    }),
  );

  app.post(
    "/signin",
    webRoute(async (c) => {
      const form = await readForm(c);
      checkSignInCsrf(c, form);
      const next = safeNext(form.get("next"));
      const passphrase = form.get("passphrase") ?? "";
      const { store } = c.get("deps");
      const result = await guard.attemptPassphrase(store, clientAddress(c), async () =>
        verifyPassphrase(passphrase, await store.getOwnerPassphraseHash()),
      );
      if (result.outcome === "throttled") throw throttled(result.retryAfterMs);
      if (result.outcome === "ok") return signedIn(c, next);
      const csrf = csrfToken(presession(c), "signin");
      return renderPage(c, { status: 401 }, (nonce) => (
        <SignInPage nonce={nonce} csrf={csrf} next={next} error={FAILED} />
      ));
    }),
  );

  app.get(
    "/signin/link",
    webRoute(async (c) => {
      const token = c.req.query("token") ?? "";
      const csrf = csrfToken(presession(c), "signin");
      const error = isWellFormedSecret(token) ? undefined : LINK_FAILED;
      return renderPage(c, { status: error ? 400 : 200 }, (nonce) => (
        <SignInLinkPage nonce={nonce} csrf={csrf} token={token} error={error} />
      ));
    }),
  );

  app.post(
    "/signin/link",
    webRoute(async (c) => {
      const form = await readForm(c);
      checkSignInCsrf(c, form);
      const { store } = c.get("deps");
      // A valid link (a 256-bit secret) signs in whatever lock is in force; invalid ones slow
      // this address down (guard.attemptLink).
      const result = await guard.attemptLink(store, clientAddress(c), () =>
        consumeSignInLink(store, form.get("token")),
      );
      if (result.outcome === "throttled") throw throttled(result.retryAfterMs);
      if (result.outcome === "ok") return signedIn(c, "/console");
      const csrf = csrfToken(presession(c), "signin");
      return renderPage(c, { status: 401 }, (nonce) => (
        <SignInLinkPage nonce={nonce} csrf={csrf} token="" error={LINK_FAILED} />
      ));
    }),
  );

  app.post(
    "/signout",
    webRoute(async (c) => {
      const session = await requirePostSession(c, await readForm(c));
      await endSession(c.get("deps").store, session.secret);
      clearCookie(c, "session");
      return c.redirect("/signin", 303);
    }),
  );
}
