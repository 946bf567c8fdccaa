// Renders every failure as the JSON error envelope: PdppError as itself, anything else as a
// generic 500 internal_error (the internal message and stack stay in the server's stderr).
import type { Context } from "hono";
import { PdppError } from "../core/errors.js";
import type { ErrorEnvelope } from "../core/wire.js";
import type { RsEnv } from "./env.js";

export function errorResponse(c: Context<RsEnv>, error: PdppError): Response {
  const body: ErrorEnvelope = { error: error.toBody(c.get("requestId")) };
  const headers: Record<string, string> = {};
  if (error.code === "method_not_allowed") headers.allow = "POST";
  return c.json(body, error.status as 400, headers);
}

export function onError(err: Error, c: Context<RsEnv>): Response {
  if (err instanceof PdppError) return errorResponse(c, err);
  // hono's own errors for malformed input (e.g. bad JSON) are client errors, not bugs.
  const status = (err as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return errorResponse(c, new PdppError("invalid_request", "the request could not be parsed."));
  }
  console.error(`pdpp: internal error on ${c.req.method} ${new URL(c.req.url).pathname}:`, err);
  return errorResponse(c, new PdppError("internal_error", "internal error; the server log has the details."));
}

export function notFound(c: Context<RsEnv>): Response {
  return errorResponse(
    c,
    new PdppError(
      "route_not_found",
      `no such route for ${c.req.method}; the API lives under /v1 (start with GET /v1/schema).`,
    ),
  );
}
