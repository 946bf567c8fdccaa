// Who may use the owner pages: a browser holding a live session cookie, nothing else. Bearer tokens
// (owner, client or OAuth) are refused outright, and every POST carries the session's CSRF token.
import { readCookie, type WebContext } from "./http.js";
import { csrfMatches, csrfToken, sessionIsLive } from "./session.js";

export interface OwnerSession {
  /** The CSRF token every form of this session carries. */
  csrf: string;
  secret: string;
}

/** A web-only refusal: the caller renders it as a page (403 or 401), never as JSON. */
export class WebRefusal extends Error {
  constructor(
    readonly status: 401 | 403 | 404 | 429,
    readonly title: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function refuseBearer(c: WebContext): void {
  if (c.req.header("authorization") !== undefined) {
    throw new WebRefusal(
      401,
      "Bearer tokens are not accepted here",
      "The owner console takes only a signed-in browser session; tokens (owner, client or OAuth) are refused.",
    );
  }
}

/** The live session of this request, or null (the caller redirects to sign-in). */
export async function currentSession(c: WebContext): Promise<OwnerSession | null> {
  const secret = readCookie(c, "session");
  if (secret === undefined || !(await sessionIsLive(c.get("deps").store, secret))) return null;
  return { secret, csrf: csrfToken(secret, "session") };
}

/** A state-changing request needs a live session and its CSRF token, else 403. */
export async function requirePostSession(c: WebContext, form: URLSearchParams): Promise<OwnerSession> {
  const session = await currentSession(c);
  if (!session || !csrfMatches(session.secret, "session", form.get("_csrf"))) throw csrfRefusal();
  return session;
}

export function csrfRefusal(): WebRefusal {
  return new WebRefusal(
    403,
    "Request refused",
    "This form was not sent from a page of this console (missing or wrong CSRF token, or the session ended). Reload the page and try again.",
  );
}

/** Cross-site POSTs are refused before anything else, whatever their token (defence in depth). */
export function refuseCrossSite(c: WebContext): void {
  const site = c.req.header("sec-fetch-site");
  if (c.req.method === "POST" && site !== undefined && site !== "same-origin" && site !== "none") {
    throw csrfRefusal();
  }
}

export function isWebRefusal(error: unknown): error is WebRefusal {
  return error instanceof WebRefusal;
}
