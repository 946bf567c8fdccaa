// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): a
// client_id that is an https URL names a JSON document describing the client. It is fetched with
// bounds (size, time, no redirects, public addresses only, connecting to the address that was
// checked), validated, and cached in memory. Every fetch failure reads the same: the answer says
// nothing about what sits at an address this server may not reach.
import { lookup } from "node:dns/promises";
import { BlockList } from "node:net";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { cleanDisplayName } from "../core/display-name.js";
import { fetchPinned, type Resolve, type ResolvedAddress } from "./pinned-fetch.js";
import { redirectUriProblem } from "./redirect-uri.js";

export const MAX_CIMD_BYTES = 16 * 1024;
const FETCH_TIMEOUT_MS = 5000;
const DEFAULT_TTL_MS = 5 * 60 * 1000;
const MAX_TTL_MS = 24 * 3600 * 1000;
const MIN_TTL_MS = 60 * 1000;
const MAX_CACHED = 256;

export interface ResolvedClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
}

export interface CimdOptions {
  /** Tests and local development only: accept http client_id URLs on loopback hosts. */
  allowLoopbackHttp?: boolean;
  /** Tests only: the DNS resolver (default: the system's, every address). */
  resolve?: Resolve;
}

/** The one answer to every failure between a well-formed client_id URL and its parsed JSON. */
export const UNFETCHABLE =
  "the client metadata document could not be fetched (it must be served over https from a public address, with HTTP 200, JSON of at most 16 KiB, and no redirect)";

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Addresses a client_id URL must never make this server fetch from (SSRF). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  // No ::ffff:0:0/96 rule: BlockList checks IPv4-mapped addresses against the IPv4 rules above,
  // and such a rule would also match every plain IPv4 address.
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");

export class CimdError extends Error {}

/** True when `clientId` is meant as a metadata-document URL (rather than a registered id). */
export function looksLikeCimdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

function checkUrl(clientId: string, options: CimdOptions): URL {
  if (clientId.length > 2000) throw new CimdError("the client_id URL is too long");
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new CimdError("the client_id URL is not a URL");
  }
  const loopbackHttp =
    options.allowLoopbackHttp === true &&
    url.protocol === "http:" &&
    ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) throw new CimdError("a client_id URL must use https");
  if (url.pathname === "/" || url.pathname === "") throw new CimdError("a client_id URL needs a path");
  if (clientId.includes("#") || url.username || url.password)
    throw new CimdError("a client_id URL must not carry a fragment or credentials");
  if (/\/\.\.?(\/|$)/.test(clientId.replace(/[?].*$/, "")))
    throw new CimdError("a client_id URL must not contain dot segments");
  if (url.href !== clientId) throw new CimdError("a client_id URL must be in normalised form");
  return url;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Public addresses only; under the loopback development option, loopback addresses only. */
function addressRule(url: URL, options: CimdOptions): (a: ResolvedAddress) => boolean {
  const type = (a: ResolvedAddress) => (a.family === 6 ? "ipv6" : "ipv4");
  if (options.allowLoopbackHttp && url.protocol === "http:") return (a) => LOOPBACK.check(a.address, type(a));
  return (a) => !PRIVATE.check(a.address, type(a));
}

function ttlOf(cacheControl: string | null): number {
  const m = /max-age=(\d+)/i.exec(cacheControl ?? "");
  if (!m) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(m[1]) * 1000));
}

/** Validate a fetched document for `clientId`; throws CimdError naming the first problem. */
export function validateCimd(clientId: string, doc: unknown): ResolvedClient {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new CimdError("the client metadata document is not a JSON object");
  const raw = doc as Record<string, unknown>;
  if (raw.client_id !== clientId) throw new CimdError("the document's client_id is not its own URL");
  if ("client_secret" in raw || "client_secret_expires_at" in raw)
    throw new CimdError("a client metadata document must not carry a client secret");
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success) throw new CimdError("the client metadata document is not valid client metadata");
  const meta = parsed.data;
  if (meta.token_endpoint_auth_method !== undefined && meta.token_endpoint_auth_method !== "none")
    throw new CimdError("only public clients (token_endpoint_auth_method none) are supported");
  if (meta.redirect_uris.length === 0 || meta.redirect_uris.length > 10)
    throw new CimdError("the document needs 1 to 10 redirect_uris");
  for (const uri of meta.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new CimdError(`redirect URI ${uri.slice(0, 100)} ${problem}`);
  }
  return {
    client_id: clientId,
    client_name: cleanDisplayName(meta.client_name, new URL(clientId).host),
    redirect_uris: meta.redirect_uris,
  };
}

/** Fetches and caches client metadata documents. One per app. */
export class CimdResolver {
  private readonly cache = new Map<string, { client: ResolvedClient; until: number }>();

  constructor(private readonly options: CimdOptions = {}) {}

  async resolve(clientId: string, now = Date.now()): Promise<ResolvedClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.until > now) return cached.client;
    const url = checkUrl(clientId, this.options);
    let doc: unknown;
    let cacheControl: string | null;
    try {
      const answer = await fetchPinned(url, {
        resolve: this.options.resolve ?? systemResolve,
        allowed: addressRule(url, this.options),
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBytes: MAX_CIMD_BYTES,
      });
      cacheControl = answer.cacheControl;
      doc = JSON.parse(answer.body);
    } catch {
      throw new CimdError(UNFETCHABLE);
    }
    const client = validateCimd(clientId, doc);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(clientId, { client, until: now + ttlOf(cacheControl) });
    return client;
  }
}
