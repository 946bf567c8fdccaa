// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): a
// client_id that is an https URL names a JSON document describing the client. It is fetched with
// bounds (size, time, no redirects, public addresses only), validated, and cached in memory.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
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
}

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
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["::ffff:0:0", 96],
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

async function checkPublicAddress(url: URL, options: CimdOptions): Promise<void> {
  if (options.allowLoopbackHttp && url.protocol === "http:") return; // checked loopback above
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  for (const { address, family } of addresses) {
    if (PRIVATE.check(address, family === 6 ? "ipv6" : "ipv4"))
      throw new CimdError("the client_id URL resolves to a private address");
  }
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_CIMD_BYTES) {
      await reader.cancel();
      throw new CimdError(`the client metadata document is larger than ${MAX_CIMD_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function ttlOf(response: Response): number {
  const m = /max-age=(\d+)/i.exec(response.headers.get("cache-control") ?? "");
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
    client_name: cleanName(meta.client_name, new URL(clientId).host),
    redirect_uris: meta.redirect_uris,
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we strip
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/g;

/** A display name safe to show: no control characters, at most 100 characters. */
export function cleanName(name: string | undefined, fallback: string): string {
  const cleaned = (name ?? "").replace(CONTROL_CHARS, "").trim().slice(0, 100);
  return cleaned || fallback.slice(0, 100);
}

/** Fetches and caches client metadata documents. One per app. */
export class CimdResolver {
  private readonly cache = new Map<string, { client: ResolvedClient; until: number }>();

  constructor(private readonly options: CimdOptions = {}) {}

  async resolve(clientId: string, now = Date.now()): Promise<ResolvedClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.until > now) return cached.client;
    const url = checkUrl(clientId, this.options);
    await checkPublicAddress(url, this.options);
    let response: Response;
    try {
      response = await fetch(url, {
        redirect: "manual",
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new CimdError("the client metadata document could not be fetched");
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new CimdError("the client metadata document URL redirects; redirects are not followed");
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new CimdError(`the client metadata document answered HTTP ${response.status}`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(await readCapped(response));
    } catch (error) {
      if (error instanceof CimdError) throw error;
      throw new CimdError("the client metadata document is not JSON");
    }
    const client = validateCimd(clientId, doc);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(clientId, { client, until: now + ttlOf(response) });
    return client;
  }
}
