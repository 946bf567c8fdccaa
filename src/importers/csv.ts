// The generic CSV importer: a header row names the columns; rows become records of one stream.
import { type GenericOptions, openGenericSource } from "./generic.js";
import { csvRecords } from "./generic-readers.js";
import type { ImportSource } from "./types.js";

export { csvRecords };

export function openCsvSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "csv", reader: csvRecords });
}
