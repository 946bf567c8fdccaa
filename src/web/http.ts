// Request/response plumbing of the owner web pages: security headers (CSP with a per-response
// nonce, no framing, no referrer, no caching), cookies and form bodies.
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { PdppError } from "../core/errors.js";
import { readBodyText } from "../rs/body.js";
import type { RsEnv } from "../rs/env.js";
import { cookieNames, PRESESSION_TTL_MS, SESSION_TTL_MS } from "./session.js";

export type WebContext = Context<RsEnv>;

const MAX_FORM_BYTES = 256 * 1024;

/** Cookies are Secure (and `__Host-` prefixed) whenever the public URL is https. */
export function isSecure(c: WebContext): boolean {
  return c.get("deps").publicUrl.startsWith("https:");
}

export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * Headers every owner page answers with. No script runs at all (default-src 'none'); styles only
 * with this response's nonce; forms post to this server (plus, on the consent page, the client's
 * validated redirect origin, since browsers apply form-action to the redirect after the post).
 */
export function securityHeaders(
  c: WebContext,
  options: { nonce?: string; formAction?: string[] } = {},
): void {
  const style = options.nonce ? `'nonce-${options.nonce}'` : "'none'";
  const formAction = ["'self'", ...(options.formAction ?? [])].join(" ");
  c.header(
    "content-security-policy",
    `default-src 'none'; style-src ${style}; img-src 'self'; form-action ${formAction}; ` +
      "frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("x-frame-options", "DENY");
  // Never a Referer off this server. Not "no-referrer": under it Chromium sends `Origin: null` on
  // same-origin form posts, which the server-wide DNS-rebinding check rightly refuses.
  c.header("referrer-policy", "same-origin");
  c.header("cache-control", "no-store");
  c.header("x-content-type-options", "nosniff");
  c.header("cross-origin-opener-policy", "same-origin");
  c.header("cross-origin-resource-policy", "same-origin");
}

export function readCookie(c: WebContext, which: "session" | "presession"): string | undefined {
  return getCookie(c, cookieNames(isSecure(c))[which]);
}

export function writeCookie(c: WebContext, which: "session" | "presession", value: string): void {
  const secure = isSecure(c);
  setCookie(c, cookieNames(secure)[which], value, {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.floor((which === "session" ? SESSION_TTL_MS : PRESESSION_TTL_MS) / 1000),
  });
}

export function clearCookie(c: WebContext, which: "session" | "presession"): void {
  const secure = isSecure(c);
  deleteCookie(c, cookieNames(secure)[which], { path: "/", secure, httpOnly: true, sameSite: "Lax" });
}

/** An urlencoded form body (size-limited); anything else is refused. */
export async function readForm(c: WebContext): Promise<URLSearchParams> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new PdppError("invalid_request", "owner forms are posted as application/x-www-form-urlencoded.");
  }
  return new URLSearchParams(await readBodyText(c.req.raw, MAX_FORM_BYTES));
}

/**
 * A local path to return to after sign-in: only the console and consent pages, so `next` can never
 * send the browser to another site (`//evil`, `/\evil`, `https:…`).
 */
export function safeNext(next: string | null | undefined): string {
  if (
    typeof next === "string" &&
    /^\/(console(\/[A-Za-z0-9_/-]*)?|consent\/[A-Za-z0-9_-]{1,128})$/.test(next)
  )
    return next;
  return "/console";
}

/** Answer with a server-rendered page under this response's nonce and the security headers. */
export function renderPage(
  c: WebContext,
  options: { status?: number; formAction?: string[]; headers?: Record<string, string> },
  render: (nonce: string) => HtmlEscapedString | Promise<HtmlEscapedString>,
): Response | Promise<Response> {
  const nonce = newNonce();
  securityHeaders(c, { nonce, formAction: options.formAction });
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value);
  return c.html(html`<!DOCTYPE html>${render(nonce)}`, (options.status ?? 200) as 200);
}
