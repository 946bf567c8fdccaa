// How the MCP adapter reaches the RS: one interface, two transports (HTTP, in-process app.fetch)
// that build the same Request objects and turn the RS error envelope back into a PdppError. The
// adapter never enforces grants; the RS does, on the same code path for both entrances.
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import type { ErrorEnvelope } from "../core/wire.js";
import { type AccessLogSlot, type InProcessCall, type InProcessEnv, inProcessEnv } from "../rs/in-process.js";

export interface RsCall {
  /**
   * The MCP tool (or resource) this call serves. In-process the access log records it as
   * `mcp:<tool>`; over HTTP the RS cannot trust a label and logs the route.
   */
  tool: string;
  /** The adapter's own lookup (a schema-cache fill), not a read of its own: not logged in-process. */
  internal?: boolean;
  /** In-process, the reads of one tool call sharing a slot make one access-log row. */
  logSlot?: AccessLogSlot;
  /** Path under the provider, e.g. `/v1/search`. Segments must already be URI-encoded. */
  path: string;
  query?: [string, string][];
}

export interface RsClient {
  get<T>(call: RsCall): Promise<T>;
}

export type RsFetch = (request: Request) => Promise<Response>;

/** The RS app's own fetch (hono `app.fetch`), given the in-process call context as its env. */
export type RsAppFetch = (request: Request, env: InProcessEnv) => Response | Promise<Response>;

/** Code of an RS error, falling back by status when the RS sent a code this build does not know. */
function knownCode(code: unknown, status: number): ErrorCode {
  if (typeof code === "string" && Object.hasOwn(ERROR_CODES, code)) return code as ErrorCode;
  if (status === 401) return "invalid_token";
  if (status === 403) return "owner_only";
  if (status === 404) return "route_not_found";
  if (status === 409) return "ambiguous_connection";
  if (status >= 500) return "internal_error";
  return "invalid_request";
}

export async function errorFromResponse(response: Response): Promise<PdppError> {
  let body: Partial<ErrorEnvelope> | null = null;
  try {
    body = (await response.json()) as Partial<ErrorEnvelope>;
  } catch {
    body = null;
  }
  const error = body?.error;
  if (!error || typeof error !== "object") {
    return new PdppError(
      knownCode(null, response.status),
      `the resource server answered HTTP ${response.status}.`,
    );
  }
  const { type: _type, code, message, param, request_id: _rid, ...details } = error;
  return new PdppError(
    knownCode(code, response.status),
    typeof message === "string" ? message : "request failed.",
    {
      param: typeof param === "string" ? param : undefined,
      details,
    },
  );
}

/** The shared implementation: build a Request, send it with `send`, decode JSON or the error. */
export class FetchRsClient implements RsClient {
  readonly baseUrl: string;
  private readonly token: string;
  private readonly send: RsFetch;

  constructor(send: RsFetch, options: { token: string; baseUrl: string }) {
    this.send = send;
    this.token = options.token;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  buildRequest(call: RsCall): Request {
    const url = new URL(`${this.baseUrl}${call.path}`);
    for (const [key, value] of call.query ?? []) url.searchParams.append(key, value);
    return new Request(url, {
      method: "GET",
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: "application/json",
      },
    });
  }

  async get<T>(call: RsCall): Promise<T> {
    const response = await this.send(this.buildRequest(call));
    if (!response.ok) throw await errorFromResponse(response);
    return (await response.json()) as T;
  }
}

/** The stdio adapter talking to any provider URL. */
export class HttpRsClient extends FetchRsClient {
  constructor(baseUrl: string, token: string) {
    super((request) => fetch(request), { token, baseUrl });
  }
}

/**
 * Hosted /mcp and `pdpp mcp --store`: the same Requests dispatched to the app without a socket,
 * through the same middleware and route handlers as HTTP (auth, grant scoping, access log). The
 * call context travels in hono's env; the route hands back its answer object, so the JSON the
 * adapter would only parse again is never read.
 */
export class InProcessRsClient extends FetchRsClient {
  private readonly appFetch: RsAppFetch;

  constructor(appFetch: RsAppFetch, token: string, baseUrl = "http://127.0.0.1") {
    // FetchRsClient's own send is not used: get() below passes each call's context.
    super(() => Promise.reject(new Error("unused")), { token, baseUrl });
    this.appFetch = appFetch;
  }

  override async get<T>(call: RsCall): Promise<T> {
    const context: InProcessCall = { tool: call.tool, logged: call.internal !== true, slot: call.logSlot };
    const response = await this.appFetch(this.buildRequest(call), inProcessEnv(context));
    if (!response.ok) throw await errorFromResponse(response);
    if (context.answer) return context.answer.body as T;
    return (await response.json()) as T;
  }
}

/** Encode one path segment (record ids may hold `%`, `:`, `?`, `#`, emoji …). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
