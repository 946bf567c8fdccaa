// The generic format readers (JSONL lines, a JSON array's elements, CSV rows): bytes in, raw records
// with positions out. Kept apart from the sources (jsonl.ts, json.ts, csv.ts) so a worker thread can
// load them without the manifest validation those import.
import { csvRows } from "./csv-parse.js";
import type { RawItem } from "./generic-items.js";
import { streamJsonArray } from "./json-array-stream.js";

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

export async function* csvRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawItem> {
  let header: string[] | null = null;
  for await (const row of csvRows(chunks)) {
    if (!header) {
      header = row.fields.map((f) => f.trim());
      continue;
    }
    const position = `line ${row.line}`;
    if (row.fields.length !== header.length) {
      yield { error: `expected ${header.length} columns, found ${row.fields.length}`, position };
      continue;
    }
    const data: Record<string, unknown> = {};
    header.forEach((name, i) => {
      data[name] = row.fields[i];
    });
    yield { data, position };
  }
}
