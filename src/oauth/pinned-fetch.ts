// One bounded GET to a host whose addresses were all checked first, connecting to exactly the
// address that was checked: the socket's own lookup answers with it, so there is no second DNS
// resolution between the check and the connection (no DNS-rebinding window). No redirects, a
// size cap and an overall deadline. Every failure is the same FetchFailed, whatever its cause.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (dns.lookup with all:true; tests inject their own). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

export interface PinnedFetchOptions {
  resolve: Resolve;
  /** May this server connect to `address`? Every address of the host must pass. */
  allowed(address: ResolvedAddress): boolean;
  timeoutMs: number;
  maxBytes: number;
}

export interface PinnedResponse {
  body: string;
  cacheControl: string | null;
}

/** Deliberately without detail: the caller answers every cause with one message. */
export class FetchFailed extends Error {}

async function checkedAddress(url: URL, options: PinnedFetchOptions): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  const addresses: ResolvedAddress[] =
    family === 4 || family === 6 ? [{ address: host, family }] : await options.resolve(host);
  if (addresses.length === 0 || !addresses.every((a) => options.allowed(a))) throw new FetchFailed();
  return addresses[0];
}

function readCapped(response: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    response.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        response.destroy();
        reject(new FetchFailed());
      } else chunks.push(chunk);
    });
    response.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.once("error", () => reject(new FetchFailed()));
  });
}

/** GET `url` (http or https) from the checked address; only a 200 answer comes back. */
export async function fetchPinned(url: URL, options: PinnedFetchOptions): Promise<PinnedResponse> {
  let pinned: ResolvedAddress;
  try {
    pinned = await checkedAddress(url, options);
  } catch {
    throw new FetchFailed();
  }
  // The socket asks this instead of DNS (with all:true under Happy Eyeballs): the checked address.
  const lookup = ((_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<PinnedResponse>((resolve, reject) => {
    const fail = () => reject(new FetchFailed());
    const request = send(url, {
      method: "GET",
      headers: { accept: "application/json" },
      lookup,
      agent: false,
    });
    const deadline = setTimeout(() => {
      request.destroy();
      fail();
    }, options.timeoutMs);
    request.once("error", () => {
      clearTimeout(deadline);
      fail();
    });
    request.once("response", (response) => {
      if (response.statusCode !== 200) {
        response.destroy();
        clearTimeout(deadline);
        fail();
        return;
      }
      readCapped(response, options.maxBytes).then(
        (body) => {
          clearTimeout(deadline);
          const cacheControl = response.headers["cache-control"];
          resolve({ body, cacheControl: typeof cacheControl === "string" ? cacheControl : null });
        },
        () => {
          clearTimeout(deadline);
          fail();
        },
      );
    });
    request.end();
  });
}
