// The shape of one MCP tool: data (name, title, description, annotations, schemas) + a handler.
import type { z } from "zod";
import type { RsClient } from "../rs-client.js";
import type { StreamSchemaCache } from "../schema-cache.js";

export interface ToolDeps {
  rs: RsClient;
  /**
   * Public base URL of the RS, used in document URLs; null when the RS runs in-process
   * (`pdpp mcp --store`), where no URL would resolve and documents name pdpp://record URIs.
   */
  providerUrl: string | null;
  schemas: StreamSchemaCache;
}

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

export interface ToolResult {
  content: ContentBlock[];
  structuredContent: Record<string, unknown>;
}

export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  annotations: typeof READ_ONLY_ANNOTATIONS;
  inputSchema: S;
  outputSchema: z.ZodType;
  // Method syntax on purpose: lets ALL_TOOLS hold tools with different argument types.
  handler(args: z.infer<S>, deps: ToolDeps): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
