// One call to import a file of any supported format into a connection: open the reader, open the owner
// sink, run the batches. Shared by `pdpp import`, `pdpp demo` and the benchmarks.
import { basename } from "node:path";
import { openChatgptSource } from "./chatgpt.js";
import { openCsvSource } from "./csv.js";
import type { GenericOptions } from "./generic.js";
import { openJsonSource } from "./json.js";
import { openJsonlSource } from "./jsonl.js";
import { openMboxSource } from "./mbox.js";
import { openMboxWorkerSource } from "./mbox-worker-source.js";
import { type OwnerApi, openOwnerSink } from "./owner-sink.js";
import { runImport } from "./run-import.js";
import type { ImportProgress, ImportSource, ImportSummary, RunnableItem } from "./types.js";

export const IMPORT_KINDS = ["mbox", "chatgpt", "jsonl", "json", "csv"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export function openSource(
  kind: ImportKind,
  path: string,
  generic: GenericOptions = {},
): Promise<ImportSource> {
  switch (kind) {
    case "mbox":
      return Promise.resolve(openMboxSource(path));
    case "chatgpt":
      return openChatgptSource(path);
    case "csv":
      return openCsvSource(path, generic);
    case "json":
      return openJsonSource(path, generic);
    case "jsonl":
      return openJsonlSource(path, generic);
  }
}

export interface ImportFileOptions {
  kind: ImportKind;
  path: string;
  /** The account label of the connection (default: the file name). */
  connectionLabel?: string;
  generic?: GenericOptions;
  batchSize?: number;
  /** Parse mbox in a worker thread, overlapping the store's writes (default true). */
  parseInWorker?: boolean;
  onProgress?: (progress: ImportProgress & { bytesRead: number; totalBytes: number | null }) => void;
}

export interface ImportFileResult extends ImportSummary {
  connectionId: string;
  connectorKey: string;
  connectionLabel: string;
}

export async function importFile(api: OwnerApi, options: ImportFileOptions): Promise<ImportFileResult> {
  const source: ImportSource<RunnableItem> =
    options.kind === "mbox" && options.parseInWorker !== false
      ? openMboxWorkerSource(options.path)
      : await openSource(options.kind, options.path, options.generic);
  const connectionLabel = options.connectionLabel ?? basename(options.path);
  const sink = await openOwnerSink(api, { manifest: source.manifest, connectionLabel });
  const onProgress = options.onProgress;
  const summary = await runImport({
    source: source.items,
    sink,
    batchSize: options.batchSize,
    onProgress: onProgress
      ? (p) => onProgress({ ...p, bytesRead: source.bytesRead(), totalBytes: source.totalBytes })
      : undefined,
  });
  return { ...summary, connectionId: sink.connectionId, connectorKey: sink.connectorKey, connectionLabel };
}
