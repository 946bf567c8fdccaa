// A generic import source (jsonl / json / csv) read in a worker thread that also prepares every record
// for the in-process SQLite store (generic-worker.ts): while the main thread writes batch k, the worker
// reads, parses, validates and prepares batch k+1. Same records, positions and errors as the source it
// replaces; the prepared ops ride along (SerializedItem.prepared) to owner-sink.ts.
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import type { GenericSource } from "./generic.js";
import { chunkItems, type GenericWorkerData, type PreparedWorkerMessage } from "./generic-prepare.js";
import type { ImportSource, RunnableItem } from "./types.js";
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
    const inbox: PreparedWorkerMessage[] = [];
    let waiting: (() => void) | null = null;
    let crashed: Error | null = null;
    const wake = () => {
      waiting?.();
      waiting = null;
    };
    worker.on("message", (message: PreparedWorkerMessage) => {
      inbox.push(message);
      wake();
    });
    worker.on("error", (error) => {
      crashed = error;
      wake();
    });
    worker.on("exit", (code) => {
      crashed ??= new PdppError("internal_error", `the import preparation thread exited (code ${code})`);
      wake();
    });
    let defKey = "";
    try {
      for (;;) {
        const message = inbox.shift();
        if (!message) {
          if (crashed) throw crashed;
          await new Promise<void>((resolve) => (waiting = resolve));
          continue;
        }
        if (message.kind === "def") {
          defKey = message.defKey;
          continue;
        }
        if (message.kind === "failed") throw new PdppError(errorCode(message.code), message.message);
        bytesRead = message.bytesRead;
        if (message.kind === "done") return;
        worker.postMessage("credit"); // taken: the worker may post one more chunk
        for (const item of chunkItems(message.chunk, { stream, defKey })) yield item;
      }
    } finally {
      worker.removeAllListeners("exit");
      await worker.terminate();
    }
  }
  return {
    manifest: source.manifest,
    items: items(),
    bytesRead: () => bytesRead,
    totalBytes: source.totalBytes,
  };
}

function errorCode(code: string): ErrorCode {
  return code in ERROR_CODES ? (code as ErrorCode) : "internal_error";
}
