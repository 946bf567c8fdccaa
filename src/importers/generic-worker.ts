// Worker thread of a generic (jsonl / json / csv) import into the in-process SQLite store: reads and
// parses the file, serializes each record, and validates and prepares it exactly as SQLite's applyBatch
// would (ingest-prepare.ts), so the main thread only binds and steps statements. Chunks flow under a
// credit window, as in mbox-worker.ts.
import { parentPort, workerData } from "node:worker_threads";
import { PdppError } from "../core/errors.js";
import { streamDefKey } from "../store/sqlite/ingest-prepare.js";
import { openCountedInput } from "./file-input.js";
import { type GenericFormat, type RawReader, typedItems } from "./generic-items.js";
import {
  emptyChunk,
  type GenericWorkerData,
  type PreparedWorkerMessage,
  pushError,
  pushRecord,
} from "./generic-prepare.js";
import { csvRecords, jsonlRecords, jsonRecords } from "./generic-readers.js";
import { creditPoster, failedMessage } from "./worker-channel.js";

const READERS: Record<GenericFormat, RawReader> = { jsonl: jsonlRecords, json: jsonRecords, csv: csvRecords };

const port = parentPort;
if (!port) throw new PdppError("internal_error", "generic-worker must run in a worker thread");
const options = workerData as GenericWorkerData;

const post = creditPoster<PreparedWorkerMessage>(port, options.window);

try {
  // What openGenericSource reads for this manifest and stream (the main thread already chose them).
  const def = options.manifest.streams.find((s) => s.name === options.stream)!;
  const input = openCountedInput(options.path);
  const source = {
    items: typedItems(READERS[options.format](input.chunks), def, options.format === "csv"),
    bytesRead: input.bytesRead,
  };
  // The first message says which stream definition every op was prepared under.
  await post({ kind: "def", defKey: streamDefKey(def) });
  let chunk = emptyChunk();
  let chars = 0;
  for await (const item of source.items) {
    if ("error" in item) pushError(chunk, item);
    else chars += pushRecord(chunk, item, def);
    if (chunk.json.length >= options.chunkRecords || chars >= options.chunkChars) {
      await post({ kind: "items", chunk, bytesRead: source.bytesRead() });
      chunk = emptyChunk();
      chars = 0;
    }
  }
  if (chunk.json.length > 0) await post({ kind: "items", chunk, bytesRead: source.bytesRead() });
  await post({ kind: "done", bytesRead: source.bytesRead() });
} catch (error) {
  await post(failedMessage(error));
}
// The main thread terminates this worker once it has read "done" or "failed".
