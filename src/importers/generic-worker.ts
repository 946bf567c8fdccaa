// Worker thread of a generic (jsonl / json / csv) import into the in-process SQLite store: reads and
// parses the file, serializes each record, and validates and prepares it exactly as SQLite's applyBatch
// would (ingest-prepare.ts), so the main thread only binds and steps statements. Chunks flow under a
// credit window, as in mbox-worker.ts.
import { parentPort, workerData } from "node:worker_threads";
import { PdppError } from "../core/errors.js";
import { streamDefKey } from "../store/sqlite/ingest-prepare.js";
import { csvRecords } from "./csv.js";
import { type GenericFormat, openGenericSource, type RawReader } from "./generic.js";
import {
  type GenericWorkerData,
  type PreparedWorkerItem,
  type PreparedWorkerMessage,
  prepareRecord,
} from "./generic-prepare.js";
import { jsonRecords } from "./json.js";
import { jsonlRecords } from "./jsonl.js";

const READERS: Record<GenericFormat, RawReader> = { jsonl: jsonlRecords, json: jsonRecords, csv: csvRecords };

const port = parentPort;
if (!port) throw new PdppError("internal_error", "generic-worker must run in a worker thread");
const options = workerData as GenericWorkerData;

let credits = options.window;
let wake: (() => void) | null = null;
port.on("message", () => {
  credits++;
  wake?.();
  wake = null;
});

async function post(message: PreparedWorkerMessage): Promise<void> {
  while (message.kind === "items" && credits <= 0) await new Promise<void>((resolve) => (wake = resolve));
  if (message.kind === "items") credits--;
  port!.postMessage(message);
}

try {
  const source = await openGenericSource(options.path, {
    manifest: options.manifest,
    stream: options.stream,
    format: options.format,
    reader: READERS[options.format],
  });
  const def = options.manifest.streams.find((s) => s.name === options.stream)!;
  // The first message says which stream definition every op was prepared under.
  await post({ kind: "def", defKey: streamDefKey(def) });
  let items: PreparedWorkerItem[] = [];
  let chars = 0;
  for await (const item of source.items) {
    if ("error" in item) {
      items.push(item);
    } else {
      // The text runImport would build, parsed back as the in-process sink parses it (ingestDirect),
      // so the op is prepared from exactly the values applyBatch would have been given.
      const { json, op } = prepareRecord(item.data, def);
      items.push({ json, op, position: item.position });
      chars += json.length;
    }
    if (items.length >= options.chunkRecords || chars >= options.chunkChars) {
      await post({ kind: "items", items, bytesRead: source.bytesRead() });
      items = [];
      chars = 0;
    }
  }
  if (items.length > 0) await post({ kind: "items", items, bytesRead: source.bytesRead() });
  await post({ kind: "done", bytesRead: source.bytesRead() });
} catch (error) {
  const code = error instanceof PdppError ? error.code : "internal_error";
  await post({ kind: "failed", code, message: (error as Error).message });
}
// The main thread terminates this worker once it has read "done" or "failed".
