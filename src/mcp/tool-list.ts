// tools/list entries: JSON Schemas derived once from each tool's zod schemas (draft-07, no $schema).
import { z } from "zod";
import type { ToolDefinition } from "./tools/types.js";

/** A tool's input or output schema: always an object schema (the MCP tool shape requires it). */
export type ObjectSchema = { type: "object"; [key: string]: unknown };

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolDefinition["annotations"];
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
}

/** Drop keywords that restate defaults (safe-integer bounds, empty additionalProperties): bytes that say nothing. */
function dropSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropSafeIntegerBounds);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === "minimum" || key === "maximum") && Math.abs(v as number) === Number.MAX_SAFE_INTEGER)
      continue;
    // `{}` (any value) is JSON Schema's default for additionalProperties, and no properties is no constraint.
    const empty = v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
    if ((key === "additionalProperties" || key === "properties") && empty) continue;
    out[key] = dropSafeIntegerBounds(v);
  }
  return out;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): ObjectSchema {
  const raw = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
  const { $schema: _ignored, ...rest } = raw;
  // Every tool's schemas are z.object(...): the JSON Schema's type is "object".
  return dropSafeIntegerBounds(rest) as ObjectSchema;
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
