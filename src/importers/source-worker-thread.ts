// Worker thread of a source read off the main thread (source-worker.ts): opens the format's source
// again here, reads its items and prepares every record exactly as prepared-items.ts would for the
// in-process SQLite store, and posts them column by column under a credit window (worker-channel.ts).
import { parentPort, workerData } from "node:worker_threads";
import { PdppError } from "../core/errors.js";
import { validateManifest } from "../core/manifest-validate.js";
import { streamDefKey } from "../store/sqlite/ingest-prepare.js";
import { emptyChunk, type PreparedChunk, pushError, pushItem, pushOp } from "./generic-prepare.js";
import { preparedItem } from "./prepared-items.js";
import { findFormat } from "./registry.js";
import type { SourceWorkerData, SourceWorkerMessage } from "./source-worker.js";
import { creditPoster, failedMessage } from "./worker-channel.js";

const port = parentPort;
if (!port) throw new PdppError("internal_error", "source-worker-thread must run in a worker thread");
const options = workerData as SourceWorkerData;
const post = creditPoster<SourceWorkerMessage>(port, options.window);

const multiChunk = (): PreparedChunk => ({ ...emptyChunk(), streamAt: [], deletes: [] });

try {
  const source = await findFormat(options.kind).open(options.path, { flags: options.flags });
  source.handoff?.resume(options.prepared);
  // Prepared under the definitions as the store holds them (validated: its key order).
  const streams = validateManifest(source.manifest).streams;
  const defs = new Map(streams.map((s, index) => [s.name, { stream: s, key: streamDefKey(s), index }]));
  await post({
    kind: "def",
    streams: streams.map((s) => ({ stream: s.name, defKey: defs.get(s.name)!.key })),
  });
  let chunk = multiChunk();
  let chars = 0;
  for await (const item of source.items) {
    if ("error" in item) {
      pushError(chunk, item);
      chunk.streamAt!.push(-1);
    } else {
      const def = defs.get(item.stream);
      if (!def || "json" in item) {
        throw new PdppError(
          "internal_error",
          `${options.kind} yielded a record the reading thread cannot prepare`,
        );
      }
      const built = preparedItem(item, def);
      const op = built.prepared!.op;
      const reason = "reason" in op ? op.reason : null;
      pushItem(chunk, { json: built.json, reason, position: built.position, repaired: built.repaired });
      // The stored payload is usually the record's own JSON text: it crosses once, not twice.
      if ("reason" in op) pushOp(chunk, null, null);
      else pushOp(chunk, op, op.payloadJson === built.json ? null : op.payloadJson);
      chunk.streamAt!.push(def.index);
      if (built.op === "delete") chunk.deletes!.push(chunk.json.length - 1);
      chars += built.json.length;
    }
    if (chunk.json.length >= options.chunkRecords || chars >= options.chunkChars) {
      await post({ kind: "items", chunk, bytesRead: source.bytesRead() });
      chunk = multiChunk();
      chars = 0;
    }
  }
  if (chunk.json.length > 0) await post({ kind: "items", chunk, bytesRead: source.bytesRead() });
  await post({
    kind: "done",
    bytesRead: source.bytesRead(),
    notes: source.notes?.() ?? [],
    finished: source.handoff?.finished(),
  });
} catch (error) {
  await post(failedMessage(error));
}
// The main thread terminates this worker once it has read "done" or "failed".
