// The pdpp MCP server factory: six read tools from ALL_TOOLS and two resource templates, over any
// transport and either protocol era (2025 initialize-based, 2026-07-28 stateless). Tool failures
// are results (isError + typed code); protocol failures are errors. The SDK stays behind this file,
// hosted.ts and stdio.ts.
import { readFileSync } from "node:fs";
import {
  type CacheHint,
  PerRequestHTTPServerTransport,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Transport,
} from "@modelcontextprotocol/server";
import { isPdppError } from "../core/errors.js";
import { INSTRUCTIONS } from "./instructions.js";
import { LegacyAnswersTransport } from "./legacy-answers.js";
import { RESOURCE_TEMPLATES, readResource } from "./resources.js";
import type { RsClient } from "./rs-client.js";
import { StreamSchemaCache } from "./schema-cache.js";
import { parseArgs, toToolError } from "./tool-errors.js";
import { listedTool } from "./tool-list.js";
import { ALL_TOOLS } from "./tools/index.js";
import type { ToolDeps } from "./tools/types.js";

function packageVersion(): string {
  const path = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

const VERSION = packageVersion();

/**
 * resources/read errors: a missing record is invalid params, as 2026-07-28 says (the SDK sends
 * -32602 for -32002 on every revision; 2025-era clients get -32002 back, legacy-answers.ts).
 */
function resourceErrorCode(status: number): number {
  return status >= 500 ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
}

/**
 * The SDK's Server, answering 2025-era requests with the codes pdpp gave before SDK v2 on every
 * connection (stdio, the hosted 2025 dispatcher, in-memory). The SDK's per-request 2026-07-28
 * transport stays unwrapped: connecting to it is what binds a server to that revision.
 */
class PdppServer extends Server {
  override connect(transport: Transport): Promise<void> {
    const legacy = !(transport instanceof PerRequestHTTPServerTransport);
    return super.connect(legacy ? new LegacyAnswersTransport(transport) : transport);
  }
}

/**
 * Caching hints for 2026-07-28 clients (2025 answers never carry them). Lists and discovery are the
 * same for every caller (one profile-free surface; they change only when pdpp is upgraded), so any
 * cache may keep them for an hour. A resource read depends on the caller's grant and on the data:
 * private and not cached (ttl 0). tools/call results are not cacheable in the protocol.
 */
const SHARED_FOR_AN_HOUR: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };
export const CACHE_HINTS = {
  "tools/list": SHARED_FOR_AN_HOUR,
  "resources/list": SHARED_FOR_AN_HOUR,
  "resources/templates/list": SHARED_FOR_AN_HOUR,
  "server/discover": SHARED_FOR_AN_HOUR,
  "resources/read": { ttlMs: 0, cacheScope: "private" },
} satisfies Record<string, CacheHint>;

export interface PdppMcpServerOptions {
  rs: RsClient;
  /** Public base URL of the RS (document URLs); null when the RS runs in-process (`--store`). */
  providerUrl: string | null;
  /** Reuse a schema cache across servers of one bearer (hosted /mcp builds a server per request). */
  schemas?: StreamSchemaCache;
}

export type RequestExtra = ServerContext;

/** A server for one bearer (stdio, tests): the same dependencies for every request. */
export function createPdppMcpServer(options: PdppMcpServerOptions): Server {
  // One cache per bearer: a stdio server owns one; hosted /mcp passes the bearer's shared one.
  const schemas = options.schemas ?? new StreamSchemaCache();
  const deps: ToolDeps = { rs: options.rs, providerUrl: options.providerUrl, schemas };
  return createMcpDispatcher(() => deps);
}

/**
 * The server with its handlers, taking each request's dependencies (who is calling, through which
 * RsClient) from `depsFor(extra)`. Hosted /mcp keeps one of these per process and passes the
 * caller's identity with each message (extra.http.authInfo), so nothing of one request is
 * reachable from another.
 */
export function createMcpDispatcher(depsFor: (extra: RequestExtra) => ToolDeps): Server {
  const server = new PdppServer(
    { name: "pdpp", version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
    },
  );
  const byName = new Map(ALL_TOOLS.map((t) => [t.name, t]));

  server.setRequestHandler("tools/list", () => ({ tools: ALL_TOOLS.map((t) => listedTool(t)) }));

  server.setRequestHandler("tools/call", async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool ${request.params.name}; tools: ${[...byName.keys()].join(", ")}.`,
      );
    }
    try {
      const args = parseArgs(tool.inputSchema, request.params.arguments);
      const result = await tool.handler(args, depsFor(extra));
      return { ...result };
    } catch (error) {
      return { ...toToolError(error) };
    }
  });

  server.setRequestHandler("resources/list", () => ({ resources: [] }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler("resources/read", async (request, extra) => {
    try {
      return await readResource(request.params.uri, depsFor(extra));
    } catch (error) {
      if (isPdppError(error)) {
        // The typed RS code travels in the message (what a model sees) and in data (for hosts),
        // beside the URI that failed (2026-07-28 asks for it).
        throw new ProtocolError(resourceErrorCode(error.status), `${error.code}: ${error.message}`, {
          ...error.toBody(),
          uri: request.params.uri,
        });
      }
      throw error;
    }
  });
  return server;
}
