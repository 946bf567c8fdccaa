// The mbox import source backed by a worker thread: parsing and serializing overlap the main thread's
// synchronous SQLite writes (the 2-core target). Same records, ids and positions as openMboxSource.
import { statSync } from "node:fs";
import { PdppError } from "../core/errors.js";
import { MBOX_MANIFEST } from "./mbox-manifest.js";
import type { MboxWorkerData, WorkerMessage } from "./mbox-worker.js";
import type { ImportSource, RunnableItem } from "./types.js";
import { workerMessages } from "./worker-channel.js";
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
    for await (const message of workerMessages<WorkerMessage>(worker, "the mbox parser thread")) {
      bytesRead = message.bytesRead;
      if (message.kind !== "items") continue;
      for (const item of message.items) {
        yield "json" in item ? { stream: "messages", json: item.json, position: item.position } : item;
      }
    }
  }
  return { manifest: MBOX_MANIFEST, items: items(), bytesRead: () => bytesRead, totalBytes };
}
