// Worker thread of the mbox import: reads, splits and parses the file and serializes each record, so the
// main thread only writes batches (SQLite is synchronous there); batches flow under a credit window.
import { parentPort, workerData } from "node:worker_threads";
import { PdppError } from "../core/errors.js";
import { openCountedInput } from "./file-input.js";
import { mboxItems } from "./mbox.js";
import { creditPoster, failedMessage } from "./worker-channel.js";

/** One parsed message as it crosses the thread boundary: the record's JSON text, or an error. */
export type WorkerItem = { json: string; position?: string } | { error: string; position: string };

export type WorkerMessage =
  | { kind: "items"; items: WorkerItem[]; bytesRead: number }
  | { kind: "done"; bytesRead: number }
  | { kind: "failed"; code: string; message: string };

export interface MboxWorkerData {
  path: string;
  /** Messages per posted chunk. */
  chunkSize: number;
  /** Chunks that may be in flight before the worker waits for the main thread to take one. */
  window: number;
}

const port = parentPort;
if (!port) throw new PdppError("internal_error", "mbox-worker must run in a worker thread");
const options = workerData as MboxWorkerData;

const post = creditPoster<WorkerMessage>(port, options.window);

try {
  const input = openCountedInput(options.path);
  let items: WorkerItem[] = [];
  for await (const item of mboxItems(input.chunks)) {
    items.push("data" in item ? { json: JSON.stringify(item.data), position: item.position } : item);
    if (items.length >= options.chunkSize) {
      await post({ kind: "items", items, bytesRead: input.bytesRead() });
      items = [];
    }
  }
  if (items.length > 0) await post({ kind: "items", items, bytesRead: input.bytesRead() });
  await post({ kind: "done", bytesRead: input.bytesRead() });
} catch (error) {
  await post(failedMessage(error));
}
// The main thread terminates this worker once it has read "done" or "failed".
