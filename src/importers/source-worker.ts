// A format's source read in a worker thread that also prepares every record for the in-process SQLite
// store (source-worker-thread.ts), as the jsonl importer's worker does (generic-worker-source.ts):
// while the main thread writes batch k, the worker reads, builds and prepares batch k+1, and each
// record is serialized once, never parsed back. The main thread's copy of the source runs prepare,
// commit and skipped; what they share with the reading crosses by the source's handoff. Same records,
// positions, rejections and summary as the source read on the main thread.
import { PdppError } from "../core/errors.js";
import type { PreparedChunk } from "./generic-prepare.js";
import { chunkItems } from "./generic-prepare.js";
import type { ImportSource, RunnableItem } from "./types.js";
import { workerMessages } from "./worker-channel.js";
import { startImporterWorker } from "./worker-start.js";

/** What the worker is started with. */
export interface SourceWorkerData {
  kind: string;
  path: string;
  flags?: Record<string, unknown>;
  /** The main thread's source's handoff.prepared(), when it has one. */
  prepared?: unknown;
  chunkRecords: number;
  chunkChars: number;
  window: number;
}

export type SourceWorkerMessage =
  | { kind: "def"; streams: { stream: string; defKey: string }[] }
  | { kind: "items"; chunk: PreparedChunk; bytesRead: number }
  | { kind: "done"; bytesRead: number; notes: string[]; finished: unknown }
  | { kind: "failed"; code: string; message: string };

/**
 * As the generic worker (generic-worker-source.ts): a chunk closes at 1,000 records or 256 KiB of
 * JSON and 24 may be in flight, so the read-ahead stays under ~6 MiB of record JSON (plus the texts
 * taken out of it) whatever the record size.
 */
const CHUNK_RECORDS = 1000;
const CHUNK_CHARS = 256 * 1024;
const WINDOW = 24;

/** `source` (opened on this thread from `kind`, `path`, `flags`), its items read in a worker thread. */
export function openSourceWorker(
  source: ImportSource<RunnableItem>,
  reopen: { kind: string; path: string; flags?: Record<string, unknown> },
): ImportSource<RunnableItem> {
  let bytesRead = 0;
  let notes: string[] = [];
  async function* items(): AsyncGenerator<RunnableItem> {
    // Started at the first item: after importFile ran the source's prepare.
    const data: SourceWorkerData = {
      ...reopen,
      prepared: source.handoff?.prepared(),
      chunkRecords: CHUNK_RECORDS,
      chunkChars: CHUNK_CHARS,
      window: WINDOW,
    };
    const worker = startImporterWorker("source-worker-thread", data);
    let targets: { stream: string; defKey: string }[] | null = null;
    for await (const message of workerMessages<SourceWorkerMessage>(worker, "the import reading thread")) {
      if (message.kind === "def") {
        targets = message.streams;
        continue;
      }
      bytesRead = message.bytesRead;
      if (message.kind === "items") {
        if (!targets) throw new PdppError("internal_error", "import reading thread sent items first");
        yield* chunkItems(message.chunk, targets);
      } else if (message.kind === "done") {
        notes = message.notes;
        source.handoff?.adopt(message.finished);
      }
    }
  }
  return {
    ...source,
    items: items(),
    bytesRead: () => bytesRead,
    notes: () => notes,
  };
}
