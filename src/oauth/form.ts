// Request/response plumbing shared by the OAuth endpoints: bounded form bodies, RFC 6749 error
// objects, and no-store on everything that can carry a secret.
import type { Context } from "hono";
import { PdppError } from "../core/errors.js";
import { readBodyText } from "../rs/body.js";
import type { RsEnv } from "../rs/env.js";

export const MAX_FORM_BYTES = 64 * 1024;

export class OAuthFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: 400 | 401 | 413 | 429 = 400,
  ) {
    super(message);
  }
}

/** A form body (application/x-www-form-urlencoded) whose parameters each appear at most once. */
export async function readForm(c: Context<RsEnv>, names: readonly string[]): Promise<Map<string, string>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new OAuthFailure("invalid_request", "send the parameters as application/x-www-form-urlencoded.");
  let text: string;
  try {
    text = await readBodyText(c.req.raw, MAX_FORM_BYTES);
  } catch (error) {
    if (error instanceof PdppError && error.code === "payload_too_large")
      throw new OAuthFailure("invalid_request", "the request body is limited to 64 KiB.", 413);
    throw error;
  }
  const params = new URLSearchParams(text);
  const out = new Map<string, string>();
  for (const name of names) {
    const values = params.getAll(name);
    if (values.length > 1) throw new OAuthFailure("invalid_request", `the ${name} parameter is repeated.`);
    if (values.length === 1 && values[0] !== "") out.set(name, values[0]);
  }
  return out;
}

export function required(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthFailure("invalid_request", `${name} is missing.`);
  return value;
}

export function noStore(c: Context<RsEnv>): void {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
}

/** Run an OAuth endpoint: OAuthFailure → the RFC 6749 §5.2 error object, never cached. */
export async function oauthEndpoint(c: Context<RsEnv>, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof OAuthFailure)) throw error;
    noStore(c);
    if (error.status === 401) c.header("WWW-Authenticate", 'Basic realm="pdpp"');
    return c.json({ error: error.code, error_description: error.message }, error.status);
  }
}
