// The generic JSONL importer: one record object per line, split on bytes so lines can be of any size.
import { type GenericOptions, openGenericSource, type RawItem } from "./generic.js";
import type { ImportSource } from "./types.js";

export async function* jsonlRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawItem> {
  let parts: Buffer[] = [];
  let line = 1;
  const parse = (bytes: Buffer): RawItem | null => {
    const text = bytes
      .toString("utf8")
      .replace(/^\ufeff/, "")
      .trim();
    const position = `line ${line}`;
    line++;
    if (text === "") return null;
    try {
      const value: unknown = JSON.parse(text);
      if (!value || typeof value !== "object" || Array.isArray(value)) {
        return { error: "a record must be a JSON object", position };
      }
      return { data: value as Record<string, unknown>, position };
    } catch (error) {
      return { error: `invalid JSON: ${(error as Error).message}`, position };
    }
  };
  for await (const chunk of chunks) {
    let start = 0;
    let at = chunk.indexOf(0x0a);
    while (at >= 0) {
      const piece = chunk.subarray(start, at);
      const item = parse(parts.length === 0 ? piece : Buffer.concat([...parts, piece]));
      parts = [];
      if (item) yield item;
      start = at + 1;
      at = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (parts.length > 0) {
    const item = parse(Buffer.concat(parts));
    if (item) yield item;
  }
}

export function openJsonlSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "jsonl", reader: jsonlRecords });
}
