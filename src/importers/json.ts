// The generic JSON importer: a top-level array of record objects, streamed element by element.
import { type GenericOptions, openGenericSource } from "./generic.js";
import { jsonRecords } from "./generic-readers.js";
import type { ImportSource } from "./types.js";

export { jsonRecords };

export function openJsonSource(path: string, options: GenericOptions): Promise<ImportSource> {
  return openGenericSource(path, { ...options, format: "json", reader: jsonRecords });
}
