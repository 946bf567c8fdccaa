// The caller's address, for throttles and rate limits: the TCP peer, or, only when that peer is a
// proxy the operator trusts (`--trust-proxy`), the client address the proxy reports in
// X-Forwarded-For (the right-most address no trusted proxy added). Parsing and trust rules are
// proxy-addr's (the one Express uses): addresses, CIDR ranges and the names loopback, linklocal,
// uniquelocal.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import proxyaddr from "proxy-addr";
import { PdppError } from "../core/errors.js";
import type { RsEnv } from "./env.js";

/** Is the hop at `address` a trusted proxy? */
export type TrustProxy = (address: string, hop: number) => boolean;

export const TRUST_NO_PROXY: TrustProxy = () => false;

/** The trust rule of `--trust-proxy` values (each an address, a CIDR range or a proxy-addr name). */
export function compileTrustProxy(values: readonly string[]): TrustProxy {
  if (values.length === 0) return TRUST_NO_PROXY;
  const specs = values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  try {
    return proxyaddr.compile(specs);
  } catch (error) {
    throw new PdppError(
      "invalid_request",
      `--trust-proxy: ${(error as Error).message}; give an address, a CIDR range, loopback, linklocal or uniquelocal.`,
    );
  }
}

/** The TCP peer address (the node bindings ride along as hono's env), or "unknown". */
function peerAddress(c: Context<RsEnv>): string {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? "unknown";
}

export function clientAddress(c: Context<RsEnv>): string {
  const peer = peerAddress(c);
  const trust = c.get("deps").trustProxy;
  if (trust === TRUST_NO_PROXY || peer === "unknown") return peer;
  const forwardedFor = c.req.header("x-forwarded-for");
  if (forwardedFor === undefined) return peer;
  // proxy-addr reads only these two properties of the request.
  const request = { socket: { remoteAddress: peer }, headers: { "x-forwarded-for": forwardedFor } };
  return proxyaddr(request as unknown as IncomingMessage, trust);
}
