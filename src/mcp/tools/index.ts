// ALL_TOOLS: the one list of the adapter's tools; the server, tools/list and the snapshots loop over it.
import { aggregateTool } from "./aggregate.js";
import { fetchTool } from "./fetch.js";
import { queryRecordsTool } from "./query-records.js";
import { readRecordFieldTool } from "./read-record-field.js";
import { schemaTool } from "./schema.js";
import { searchTool } from "./search.js";
import type { ToolDefinition } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools differ in argument types; each handler is typed by its own schema.
export const ALL_TOOLS: readonly ToolDefinition<any>[] = [
  schemaTool,
  queryRecordsTool,
  aggregateTool,
  searchTool,
  fetchTool,
  readRecordFieldTool,
];
