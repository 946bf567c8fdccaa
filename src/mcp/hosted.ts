// Hosted Streamable HTTP MCP (POST /mcp), stateless in behaviour, for both protocol eras on one
// endpoint. 2025-era clients (initialize, no per-request envelope) go to one long-lived MCP server
// per process (built once: no server, transport or validator per request), each POST's messages
// dispatched to it with that request's own bearer, and the answers returned as JSON, with the
// codes pdpp gave 2025 clients before SDK v2 (server.ts; a body that is no JSON-RPC message is
// -32700). 2026-07-28 clients (the `_meta` envelope on every request) go to the SDK's
// createMcpHandler, which owns that revision's rules: server/discover, header validation, its error
// codes and HTTP statuses, caching fields. It asks for a server per request; those come from a pool
// of idle ones (a server is free again when its exchange closes), so a 2026 request builds none.
// The RS is reached in-process with the caller's own client token, through its own routes.
//
// Isolation: the caller's identity (its RsClient) travels with each message as its authInfo, never
// in shared state; on the long-lived server JSON-RPC ids are rewritten to process-unique ids while
// in flight, so two callers both using id 1 cannot receive each other's answers; notifications from
// clients are not dispatched (a cancel could otherwise name another caller's in-flight id).
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from "@modelcontextprotocol/server";
import { PdppError } from "../core/errors.js";
import { hashToken, OWNER_TOKEN_PREFIX } from "../core/ids.js";
import { MAX_JSON_BODY_BYTES, readBodyText } from "../rs/body.js";
import { InProcessRsClient, type RsAppFetch } from "./rs-client.js";
import { StreamSchemaCache } from "./schema-cache.js";
import { createMcpDispatcher, type RequestExtra } from "./server.js";
import type { ToolDeps } from "./tools/types.js";

export interface HostedMcpContext {
  token: string;
  publicUrl: string;
  /** The request body, already read under the body limit by the mount; read here when absent. */
  body?: string;
}

export type HostedMcpHandler = (request: Request, ctx: HostedMcpContext) => Promise<Response>;

const MAX_BEARERS = 256;
/** Same bound as the SDK's Streamable HTTP transport. */
const MAX_BATCH = 100;

/**
 * Schema rows per bearer, shared across that bearer's requests: without it every hosted fetch and
 * query_records paid a /v1/schema call. Keyed by token hash (a grant sees its own rows only); a
 * revoked token gains nothing from it, since every data read still goes through the RS. Least
 * recently used bearers are dropped first.
 */
function bearerSchemaCaches(): (token: string) => StreamSchemaCache {
  const caches = new Map<string, StreamSchemaCache>();
  return (token) => {
    const key = hashToken(token);
    const cache = caches.get(key) ?? new StreamSchemaCache();
    caches.delete(key); // re-inserted below: Map order is the LRU order
    if (caches.size >= MAX_BEARERS) caches.delete(caches.keys().next().value as string);
    caches.set(key, cache);
    return cache;
  };
}

function refuse(): Response {
  const error = new PdppError(
    "owner_token_refused",
    "/mcp refuses the owner token; use a client token from pdpp grant create.",
  );
  return Response.json({ error: error.toBody() }, { status: error.status });
}

/** The JSON-RPC error answers of the SDK's Streamable HTTP transport, same status and codes. */
function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

type Pending = { originalId: JSONRPCRequest["id"]; resolve: (message: JSONRPCMessage) => void };

/**
 * The one connection of the process-wide server: requests go in with a process-unique id and the
 * caller's dependencies; each answer comes back to the HTTP request that asked, with its own id.
 */
class DispatchTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers travel back; progress or log notifications have no stream in JSON mode. The
    // messages are the SDK server's own, so the shape tells them apart: a request or notification
    // has a method, an answer has none (the SDK's zod guards cost ~45 µs an answer, a failed parse
    // building its issues, on every call).
    if ("method" in message) return;
    const entry = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!entry) return;
    this.pending.delete(message.id as number);
    entry.resolve({ ...message, id: entry.originalId } as JSONRPCMessage);
  }

  dispatch(request: JSONRPCRequest, deps: ToolDeps): Promise<JSONRPCMessage> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, { originalId: request.id, resolve });
      this.onmessage?.({ ...request, id }, { authInfo: authInfoOf(deps) });
    });
  }
}

/** The caller, as the SDK carries it to the handlers (the token itself stays in the RsClient). */
function authInfoOf(deps: ToolDeps): AuthInfo {
  return { token: "", clientId: "", scopes: [], extra: { deps } };
}

function depsOf(extra: RequestExtra): ToolDeps {
  const deps = extra.http?.authInfo?.extra?.deps as ToolDeps | undefined;
  // Unreachable through the dispatcher; a request without its caller must never run.
  if (!deps) throw new PdppError("internal_error", "hosted MCP request without its caller.");
  return deps;
}

/** Rejections of a body that is no JSON-RPC message (or a batch holding one), whatever its era. */
const NOT_JSON_RPC = new Set(["invalid-json-rpc-body", "batch-with-invalid-element", "empty-batch"]);

/**
 * Whether a POST is a 2026-07-28 request: the SDK's own era classification (the envelope in the
 * body, the protocol-version header), the step createMcpHandler and isLegacyRequest run. A body
 * that is no JSON-RPC message and names no 2026 revision in its header stays with the 2025
 * answers, as before SDK v2 (-32700 rather than the SDK's -32600).
 */
function isModernRequest(request: Request, raw: unknown): boolean {
  const version = request.headers.get("mcp-protocol-version") ?? undefined;
  if (plainLegacy(version, raw)) return false;
  if (envelopeRequest(raw)) return true;
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: version,
    mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
    mcpNameHeader: request.headers.get("mcp-name") ?? undefined,
    body: raw,
  });
  if (outcome.kind !== "reject") return outcome.kind === "modern";
  const legacyHeader = version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version.trim());
  return !(NOT_JSON_RPC.has(outcome.cell) && legacyHeader);
}

/** The protocol-version headers of the 2025 era, as the SDK's own classification tells them. */
const LEGACY_HEADERS = new Set(
  SUPPORTED_PROTOCOL_VERSIONS.filter(
    (version) =>
      classifyInboundRequest({
        httpMethod: "POST",
        protocolVersionHeader: version,
        body: { jsonrpc: "2.0", id: 0, method: "ping" },
      }).kind === "legacy",
  ),
);

/**
 * A body classifyInboundRequest can only route to the 2025 answers, told without it: one message
 * with no answer keys (the SDK's response guards need `result` or `error`), no `_meta` in its
 * params (no envelope claim), and no protocol-version header or a 2025 one. The SDK calls such a
 * request or notification legacy, and rejects anything else as no JSON-RPC, which a 2025 header
 * keeps with the 2025 answers too. Its zod guards fail, issues and all, on every such request:
 * ~40 µs of a 2025 call's CPU.
 */
function plainLegacy(version: string | undefined, raw: unknown): boolean {
  if (version !== undefined && !LEGACY_HEADERS.has(version)) return false;
  if (!isPlainObject(raw) || "result" in raw || "error" in raw) return false;
  return raw.params === undefined || (isPlainObject(raw.params) && !("_meta" in raw.params));
}

/**
 * A request classifyInboundRequest can only route to createMcpHandler, told without it: one
 * JSON-RPC request with no answer keys, not initialize, whose params carry the envelope claim. The
 * SDK calls it modern, or rejects it (an invalid envelope, headers that disagree with the body)
 * with a 2026 answer, which createMcpHandler gives again when it classifies the request itself:
 * the first classification cost ~24 µs of a 2026 call's CPU.
 */
function envelopeRequest(raw: unknown): boolean {
  if (!isPlainObject(raw) || "result" in raw || "error" in raw) return false;
  if (typeof raw.method !== "string" || raw.method === "initialize") return false;
  const meta = isPlainObject(raw.params) ? raw.params._meta : undefined;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta && isJSONRPCRequest(raw);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Idle servers kept for 2026-07-28 requests; beyond this many at once they are built and dropped. */
const MAX_IDLE_SERVERS = 64;

/**
 * createMcpHandler's factory, an idle server when there is one. createMcpHandler chains its own
 * onclose in front of ours for the exchange and restores ours when the exchange closes, which
 * returns the server to the pool (a handler still running then can answer only its own closed
 * transport: the SDK sends each answer on the transport its request came in on).
 */
function serverPool(build: () => Server): () => Server {
  const idle: Server[] = [];
  return () => {
    const server = idle.pop() ?? build();
    server.onclose = () => {
      if (idle.length < MAX_IDLE_SERVERS) idle.push(server);
    };
    return server;
  };
}

/** A 2025-era POST body as JSON-RPC messages, or the transport's error answer. */
function parseMessages(request: Request, raw: unknown): JSONRPCMessage[] | Response {
  if (Array.isArray(raw) && raw.length > MAX_BATCH) {
    return rpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
  }
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(raw) ? raw : [raw]).map((m) => parseJSONRPCMessage(m));
  } catch {
    return rpcError(400, -32700, "Parse error: Invalid JSON-RPC message");
  }
  // The method first: isInitializeRequest is a zod parse that fails, issues and all, for every
  // other request.
  const initializing = messages.some(
    (m) => "method" in m && m.method === "initialize" && isInitializeRequest(m),
  );
  if (initializing && messages.length > 1) {
    return rpcError(400, -32600, "Invalid Request: Only one initialization request is allowed");
  }
  const version = request.headers.get("mcp-protocol-version");
  if (!initializing && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return messages;
}

export function createHostedMcpHandler(options: { rsFetch: RsAppFetch }): HostedMcpHandler {
  const schemasFor = bearerSchemaCaches();
  const transport = new DispatchTransport();
  const server = createMcpDispatcher(depsOf);
  // connect() only wires callbacks and starts the (no-op) transport: effectively synchronous.
  const connected = server.connect(transport);
  const modern = createMcpHandler(
    serverPool(() => createMcpDispatcher(depsOf)),
    { legacy: "reject" },
  );
  return async (request, ctx) => {
    // The RS mount already refuses owner tokens; this keeps the adapter safe when mounted elsewhere.
    if (ctx.token.startsWith(OWNER_TOKEN_PREFIX)) return refuse();
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    const body = ctx.body ?? (await readBodyText(request, MAX_JSON_BODY_BYTES));
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return rpcError(400, -32700, "Parse error: Invalid JSON");
    }
    const deps: ToolDeps = {
      rs: new InProcessRsClient(options.rsFetch, ctx.token, ctx.publicUrl),
      providerUrl: ctx.publicUrl,
      schemas: schemasFor(ctx.token),
    };
    // The SDK's own era classification (the envelope in the body, the protocol-version header).
    if (isModernRequest(request, raw)) {
      return modern.fetch(request, { parsedBody: raw, authInfo: authInfoOf(deps) });
    }
    const messages = parseMessages(request, raw);
    if (messages instanceof Response) return messages;
    const requests = messages.filter(isJSONRPCRequest);
    // Notifications and responses carry nothing a stateless server acts on: accepted, not dispatched.
    if (requests.length === 0) return new Response(null, { status: 202 });
    await connected;
    const answers = await Promise.all(requests.map((r) => transport.dispatch(r, deps)));
    // As the SDK transport answers: one response alone, several as an array.
    return new Response(JSON.stringify(answers.length === 1 ? answers[0] : answers), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  };
}
