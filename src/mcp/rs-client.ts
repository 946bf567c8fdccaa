// How the MCP adapter reaches the RS: one interface, two transports (HTTP, in-process app.fetch)
// that build the same Request objects, tag them with the calling tool, and turn the RS error
// envelope back into a PdppError. The adapter never enforces grants; the RS does.
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import type { ErrorEnvelope } from "../core/wire.js";

export interface RsCall {
  /** The MCP tool (or resource) this call serves; sent as `x-pdpp-tool` for the access log. */
  tool: string;
  /** Path under the provider, e.g. `/v1/search`. Segments must already be URI-encoded. */
  path: string;
  query?: [string, string][];
}

export interface RsClient {
  get<T>(call: RsCall): Promise<T>;
}

export type RsFetch = (request: Request) => Promise<Response>;

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
        "x-pdpp-tool": call.tool,
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

/** Hosted /mcp and `pdpp mcp --store`: the same Requests dispatched to the app without a socket. */
export class InProcessRsClient extends FetchRsClient {
  constructor(fetchFn: RsFetch, token: string, baseUrl = "http://127.0.0.1") {
    super(fetchFn, { token, baseUrl });
  }
}

/** Encode one path segment (record ids may hold `%`, `:`, `?`, `#`, emoji …). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
