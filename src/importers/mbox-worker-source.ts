// The mbox import source backed by a worker thread: parsing and serializing overlap the main thread's
// synchronous SQLite writes (the 2-core target). Same records, ids and positions as openMboxSource.
import { statSync } from "node:fs";
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import { MBOX_MANIFEST } from "./mbox-manifest.js";
import type { MboxWorkerData, WorkerMessage } from "./mbox-worker.js";
import type { ImportSource, RunnableItem } from "./types.js";
import { startImporterWorker } from "./worker-start.js";

/** Messages per chunk crossing the thread boundary, and chunks in flight: bounds memory to a few MB. */
const CHUNK_SIZE = 250;
const WINDOW = 12;

/** Open an mbox file as an import source parsed in a worker thread. */
export function openMboxWorkerSource(path: string): ImportSource<RunnableItem> {
  let totalBytes: number;
  try {
    totalBytes = statSync(path).size;
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  let bytesRead = 0;
  async function* items(): AsyncGenerator<RunnableItem> {
    const data: MboxWorkerData = { path, chunkSize: CHUNK_SIZE, window: WINDOW };
    const worker = startImporterWorker("mbox-worker", data);
    const inbox: WorkerMessage[] = [];
    let waiting: (() => void) | null = null;
    let crashed: Error | null = null;
    const wake = () => {
      waiting?.();
      waiting = null;
    };
    worker.on("message", (message: WorkerMessage) => {
      inbox.push(message);
      wake();
    });
    worker.on("error", (error) => {
      crashed = error;
      wake();
    });
    worker.on("exit", (code) => {
      crashed ??= new PdppError("internal_error", `the mbox parser thread exited (code ${code})`);
      wake();
    });
    try {
      for (;;) {
        const message = inbox.shift();
        if (!message) {
          if (crashed) throw crashed;
          await new Promise<void>((resolve) => (waiting = resolve));
          continue;
        }
        bytesRead = message.kind === "failed" ? bytesRead : message.bytesRead;
        if (message.kind === "failed") throw new PdppError(errorCode(message.code), message.message);
        if (message.kind === "done") return;
        worker.postMessage("credit"); // taken: the worker may post one more chunk
        for (const item of message.items) {
          yield "json" in item ? { stream: "messages", json: item.json, position: item.position } : item;
        }
      }
    } finally {
      worker.removeAllListeners("exit");
      await worker.terminate();
    }
  }
  return { manifest: MBOX_MANIFEST, items: items(), bytesRead: () => bytesRead, totalBytes };
}

function errorCode(code: string): ErrorCode {
  return code in ERROR_CODES ? (code as ErrorCode) : "internal_error";
}
