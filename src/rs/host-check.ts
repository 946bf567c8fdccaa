// DNS-rebinding protection for every route: the Host (and Origin, when sent) must name this
// server: localhost / 127.0.0.1 / [::1] (any port), the public URL's host and each --allowed-host.
import { PdppError } from "../core/errors.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** The host names (no port) this server answers to. */
export function allowedHostNames(options: { allowedHosts: string[]; publicUrl: string }): Set<string> {
  const names = new Set(options.allowedHosts.map((h) => h.toLowerCase().replace(/:\d+$/, "")));
  // Loopback names are always safe: a rebinding attack arrives under the attacker's domain name.
  for (const n of LOOPBACK_NAMES) names.add(n);
  // The operator-declared public URL names this server too (e.g. behind a reverse proxy).
  try {
    names.add(new URL(options.publicUrl).hostname.toLowerCase());
  } catch {
    // an unparsable publicUrl adds nothing
  }
  return names;
}

function hostnameOf(hostHeader: string): string | null {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Throw 403 invalid_host unless Host and Origin both name an allowed host. */
export function checkHost(request: Request, allowed: Set<string>): void {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const name = hostnameOf(host);
  if (!name || !allowed.has(name)) {
    throw new PdppError(
      "invalid_host",
      "the Host header does not name this server; add it with --allowed-host.",
    );
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originName: string | null = null;
    try {
      originName = new URL(origin).hostname.toLowerCase();
    } catch {
      originName = null;
    }
    if (!originName || !allowed.has(originName)) {
      throw new PdppError(
        "invalid_host",
        "the Origin header does not name this server; cross-site requests are refused.",
      );
    }
  }
}
