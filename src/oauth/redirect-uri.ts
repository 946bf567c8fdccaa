// Redirect-URI rules (pure). Registration accepts https anywhere, http only on loopback (native
// apps, RFC 8252 §7.3) and private-use schemes in reverse-domain form (RFC 8252 §7.1, e.g.
// com.example.app:/cb), never a fragment, credentials or a scheme the OS or a browser would run
// (javascript:, data:, search-ms:, ms-msdt:, shell:, …). Matching at /authorize is exact string
// equality, except that a loopback http URI matches on any port.

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const REFUSED_SCHEMES = new Set([
  "javascript:",
  "data:",
  "vbscript:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "ftp:",
  "ws:",
  "wss:",
  "mailto:",
  "tel:",
  "chrome:",
  "view-source:",
]);
export const MAX_REDIRECT_URI_CHARS = 2000;

/**
 * Private-use URIs of well-known MCP clients whose scheme is not in reverse-domain form, allowed
 * exactly (never the whole scheme: `cursor://` also reaches the app's install deep links). PKCE
 * S256 still protects the code. Cursor Desktop registers this one.
 */
const KNOWN_APP_REDIRECTS = new Set(["cursor://anysphere.cursor-mcp/oauth/callback"]);
/** A scheme named after a domain its app controls, reversed: two or more dot-separated labels. */
const REVERSE_DOMAIN_SCHEME_RE = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+:$/;

/** Why `uri` cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_CHARS) return `is longer than ${MAX_REDIRECT_URI_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (url.hash !== "" || uri.includes("#")) return "must not contain a fragment";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.protocol === "https:") return url.hostname ? null : "needs a host";
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : "must use https (http only on 127.0.0.1, [::1] or localhost)";
  }
  if (REFUSED_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (KNOWN_APP_REDIRECTS.has(uri)) return null;
  if (!REVERSE_DOMAIN_SCHEME_RE.test(url.protocol))
    return "must use https, loopback http, or an app scheme in reverse-domain form (com.example.app:)";
  return null;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** The registered URI `requested` matches, or null: exact, or loopback http on any port. */
export function matchRedirectUri(requested: string, registered: readonly string[]): string | null {
  if (registered.includes(requested)) return requested;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return null;
  }
  if (!isLoopbackHttp(url) || requested.includes("#") || url.username || url.password) return null;
  for (const candidate of registered) {
    let reg: URL;
    try {
      reg = new URL(candidate);
    } catch {
      continue;
    }
    if (!isLoopbackHttp(reg)) continue;
    // Same everything but the port: the native client picks a free port at run time.
    reg.port = url.port;
    if (reg.href === url.href) return requested;
  }
  return null;
}

/** What the consent page shows as "where you will be sent back": the host, or the custom scheme. */
export function redirectHostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol;
}

/** `uri` with response parameters added to its query (existing query parameters are kept). */
export function withQuery(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value != null) url.searchParams.set(key, value);
  return url.href;
}
