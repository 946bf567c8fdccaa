// A generic import source (jsonl / json / csv) read in a worker thread that also prepares every record
// for the in-process SQLite store (generic-worker.ts): while the main thread writes batch k, the worker
// reads, parses, validates and prepares batch k+1. Same records, positions and errors as the source it
// replaces; the prepared ops ride along (SerializedItem.prepared) to owner-sink.ts.
import type { GenericSource } from "./generic.js";
import { chunkItems, type GenericWorkerData, type PreparedWorkerMessage } from "./generic-prepare.js";
import type { ImportSource, RunnableItem } from "./types.js";
import { workerMessages } from "./worker-channel.js";
import { startImporterWorker } from "./worker-start.js";

/**
 * Below this file size the records are prepared on the main thread as before. Until the worker's
 * first chunk arrives the main thread waits: ~30 ms built, ~100-200 ms from the sources (bundling
 * included, worker-start.ts), a few hundred ms on a loaded machine. What the worker then takes off
 * the main thread is ~15 µs a record (~4,500 records, ~65 ms, a MiB of 230-byte JSONL records), so
 * a file of a few MiB repays the wait with room to spare and a smaller one would lose by it.
 */
export const PREPARE_IN_WORKER_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Records per chunk crossing the thread boundary (or 256 KiB of JSON), and chunks in flight: the
 * worker can prepare a whole 20,000-record batch ahead of the one being written, while what is in
 * flight stays under ~6 MiB of record JSON (plus the text fields taken out of it) whatever the
 * record size.
 */
const CHUNK_RECORDS = 1000;
const CHUNK_CHARS = 256 * 1024;
const WINDOW = 24;

/** `source`'s records, read and prepared in a worker thread. */
export function openGenericWorkerSource(source: GenericSource): ImportSource<RunnableItem> {
  let bytesRead = 0;
  const { path, format, stream } = source.reopen;
  async function* items(): AsyncGenerator<RunnableItem> {
    const data: GenericWorkerData = {
      path,
      format,
      manifest: source.manifest,
      stream,
      chunkRecords: CHUNK_RECORDS,
      chunkChars: CHUNK_CHARS,
      window: WINDOW,
    };
    const worker = startImporterWorker("generic-worker", data, { bundle: true });
    let defKey = "";
    for await (const message of workerMessages<PreparedWorkerMessage>(
      worker,
      "the import preparation thread",
    )) {
      if (message.kind === "def") {
        defKey = message.defKey;
        continue;
      }
      bytesRead = message.bytesRead;
      if (message.kind === "items") yield* chunkItems(message.chunk, [{ stream, defKey }]);
    }
  }
  return {
    manifest: source.manifest,
    items: items(),
    bytesRead: () => bytesRead,
    totalBytes: source.totalBytes,
  };
}
