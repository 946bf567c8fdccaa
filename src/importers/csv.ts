// The generic CSV importer: a header row names the columns; rows become records of one stream.
import { csvRows } from "./csv-parse.js";
import { type GenericOptions, openGenericSource, type RawItem } from "./generic.js";
import type { ImportSource } from "./types.js";

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

export function openCsvSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "csv", reader: csvRecords });
}
