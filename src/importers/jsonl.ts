// The generic JSONL importer: one record object per line (the reader, generic-readers.ts, splits on bytes so lines can be of any size).
import { type GenericOptions, openGenericSource } from "./generic.js";
import { jsonlRecords } from "./generic-readers.js";
import type { ImportSource } from "./types.js";

export { jsonlRecords };

export function openJsonlSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "jsonl", reader: jsonlRecords });
}
