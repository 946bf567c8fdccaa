// The record half of the generic importers, light enough for a worker thread (no manifest validation):
// what a format reader yields, and the typing of raw records for their stream.

import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.js";
import { clipText } from "../core/clip-text.js";
import type { StreamDef } from "../core/manifest.js";
import { CONTENT_HASH_FIELD } from "./infer.js";
import type { ImportItem } from "./types.js";

export type RawItem =
  | { data: Record<string, unknown>; position: string }
  | { error: string; position: string };
export type RawReader = (chunks: AsyncIterable<Buffer>) => AsyncIterable<RawItem>;
export type GenericFormat = "csv" | "json" | "jsonl";

/** Raw records typed for their stream (CSV text values), with the content-hash key added when declared. */
export async function* typedItems(
  raw: AsyncIterable<RawItem>,
  stream: StreamDef,
  fromText: boolean,
): AsyncGenerator<ImportItem> {
  const hashKey = stream.primary_key.length === 1 && stream.primary_key[0] === CONTENT_HASH_FIELD;
  for await (const item of raw) {
    if ("error" in item) {
      yield item;
      continue;
    }
    const typed = fromText ? typeTextValues(item.data, stream) : { data: item.data };
    if ("error" in typed) {
      yield { error: typed.error, position: item.position };
      continue;
    }
    const data = typed.data;
    if (hashKey && (data[CONTENT_HASH_FIELD] === undefined || data[CONTENT_HASH_FIELD] === null)) {
      data[CONTENT_HASH_FIELD] = createHash("sha256").update(canonicalJson(data)).digest("hex");
    }
    yield { stream: stream.name, data, position: item.position };
  }
}

/** CSV cells are text: empty → null, and declared integer/number/boolean columns are parsed. */
export function typeTextValues(
  row: Record<string, unknown>,
  stream: StreamDef,
): { data: Record<string, unknown> } | { error: string } {
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (value === "" || value === undefined) {
      data[name] = null;
      continue;
    }
    const type = stream.schema.properties[name]?.type;
    const text = String(value).trim();
    if (type === "integer" || type === "number") {
      const n = Number(text);
      if (text === "" || !Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) {
        return {
          error: `field ${name}: ${JSON.stringify(clipText(String(value), 40))} is not ${type === "integer" ? "an integer" : "a number"}`,
        };
      }
      data[name] = n;
    } else if (type === "boolean") {
      const lower = text.toLowerCase();
      if (!["true", "false", "yes", "no", "1", "0"].includes(lower)) {
        return { error: `field ${name}: ${JSON.stringify(clipText(String(value), 40))} is not a boolean` };
      }
      data[name] = ["true", "yes", "1"].includes(lower);
    } else data[name] = value;
  }
  return { data };
}
