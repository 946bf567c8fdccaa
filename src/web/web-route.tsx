// Wraps every owner web handler: refuses bearer tokens and cross-site posts first, and renders any
// refusal or error as an HTML page under the security headers (never JSON, never a stack trace).
import type { Handler } from "hono";
import { isPdppError } from "../core/errors.js";
import type { RsEnv } from "../rs/env.js";
import { renderPage, securityHeaders, type WebContext } from "./http.js";
import { isWebRefusal, refuseBearer, refuseCrossSite } from "./owner-gate.js";
import { MessagePage } from "./signin-pages.js";

export function webRoute(handler: (c: WebContext) => Promise<Response>): Handler<RsEnv> {
  return async (c) => {
    // Redirects and refusals carry the same headers as pages (a page then adds its style nonce).
    securityHeaders(c);
    try {
      refuseBearer(c);
      refuseCrossSite(c);
      return await handler(c);
    } catch (error) {
      return errorPage(c, error);
    }
  };
}

function errorPage(c: WebContext, error: unknown): Response | Promise<Response> {
  if (isWebRefusal(error)) {
    const headers: Record<string, string> =
      error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : {};
    return renderPage(c, { status: error.status, headers }, (nonce) => (
      <MessagePage nonce={nonce} title={error.title} message={error.message} />
    ));
  }
  if (isPdppError(error) && error.status < 500) {
    return renderPage(c, { status: error.status }, (nonce) => (
      <MessagePage nonce={nonce} title="Request refused" message={error.message} />
    ));
  }
  console.error(`pdpp: internal error on ${c.req.method} ${new URL(c.req.url).pathname}:`, error);
  return renderPage(c, { status: 500 }, (nonce) => (
    <MessagePage
      nonce={nonce}
      title="Something went wrong"
      message="Internal error; the server log has the details."
    />
  ));
}
