// tools/list entries: JSON Schemas derived once from each tool's zod schemas (draft-07, no $schema).
import { z } from "zod";
import type { ToolDefinition } from "./tools/types.js";

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolDefinition["annotations"];
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<
    string,
    unknown
  >;
  return rest;
}

const cache = new WeakMap<ToolDefinition, ListedTool>();

export function listedTool(tool: ToolDefinition): ListedTool {
  const hit = cache.get(tool);
  if (hit) return hit;
  const entry: ListedTool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: tool.annotations,
    inputSchema: jsonSchema(tool.inputSchema, "input"),
    outputSchema: jsonSchema(tool.outputSchema, "output"),
  };
  cache.set(tool, entry);
  return entry;
}
