// The generic JSON importer: a top-level array of record objects, streamed element by element.
import { type GenericOptions, openGenericSource, type RawItem } from "./generic.js";
import { streamJsonArray } from "./json-array-stream.js";
import type { ImportSource } from "./types.js";

export async function* jsonRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawItem> {
  for await (const element of streamJsonArray(chunks)) {
    const position =
      "error" in element && element.element === false
        ? `byte ${element.offset}`
        : `element ${element.index + 1} (byte ${element.offset})`;
    if ("error" in element) yield { error: element.error, position };
    else if (!element.value || typeof element.value !== "object" || Array.isArray(element.value)) {
      yield { error: "a record must be a JSON object", position };
    } else yield { data: element.value as Record<string, unknown>, position };
  }
}

export function openJsonSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "json", reader: jsonRecords });
}
