// The pdpp MCP server factory: six read tools from ALL_TOOLS and two resource templates, over any
// transport. Tool failures are results (isError + typed code); protocol failures are errors.
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { isPdppError } from "../core/errors.js";
import { INSTRUCTIONS } from "./instructions.js";
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

/** MCP's resources/read codes: -32002 resource not found (MCP spec), internal, else invalid params. */
const RESOURCE_NOT_FOUND = -32002;
function resourceErrorCode(status: number): number {
  if (status === 404) return RESOURCE_NOT_FOUND;
  return status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
}

export interface PdppMcpServerOptions {
  rs: RsClient;
  /** Public base URL of the RS (document URLs); null when the RS runs in-process (`--store`). */
  providerUrl: string | null;
  /** Reuse a schema cache across servers of one bearer (hosted /mcp builds a server per request). */
  schemas?: StreamSchemaCache;
}

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
 * caller's identity with each message (extra.authInfo), so nothing of one request is reachable
 * from another.
 */
export function createMcpDispatcher(depsFor: (extra: RequestExtra) => ToolDeps): Server {
  const server = new Server(
    { name: "pdpp", version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(ALL_TOOLS.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ALL_TOOLS.map((t) => listedTool(t)) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
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

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    try {
      return await readResource(request.params.uri, depsFor(extra));
    } catch (error) {
      if (isPdppError(error)) {
        // The typed RS code travels in the message (what a model sees) and in data (for hosts).
        throw new McpError(
          resourceErrorCode(error.status),
          `${error.code}: ${error.message}`,
          error.toBody(),
        );
      }
      throw error;
    }
  });
  return server;
}
