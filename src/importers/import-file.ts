// One call to import a file of any supported format into a connection: open the reader, open the owner
// sink, run the batches. Shared by `pdpp import`, `pdpp demo` and the benchmarks.
import { basename } from "node:path";
import type { Manifest } from "../core/manifest.js";
import { openChatgptSource } from "./chatgpt.js";
import { openCsvSource } from "./csv.js";
import type { GenericOptions } from "./generic.js";
import { openJsonSource } from "./json.js";
import { openJsonlSource } from "./jsonl.js";
import { openMboxSource } from "./mbox.js";
import { openMboxWorkerSource } from "./mbox-worker-source.js";
import {
  connectionIdsOf,
  deleteConnection,
  type OwnerApi,
  type OwnerSink,
  openOwnerSink,
} from "./owner-sink.js";
import { runImport } from "./run-import.js";
import type { ImportProgress, ImportSink, ImportSource, ImportSummary, RunnableItem } from "./types.js";

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
  /** The account label of the connection (default: see defaultConnectionLabel). */
  connectionLabel?: string;
  generic?: GenericOptions;
  batchSize?: number;
  /** Parse mbox in a worker thread, overlapping the store's writes (default true). */
  parseInWorker?: boolean;
  onProgress?: (progress: ImportProgress & { bytesRead: number; totalBytes: number | null }) => void;
}

export interface ImportFileResult extends ImportSummary {
  /** Null when nothing was stored and no connection was ever opened. */
  connectionId: string | null;
  connectorKey: string;
  connectionLabel: string;
  /** The manifest the records were written under (the inferred one with --infer). */
  manifest: Manifest;
  /** True when the import stored nothing: no new connection (or inferred connector) is left behind. */
  connectionRemoved: boolean;
}

/**
 * The label when --connection is not given: "ChatGPT" for a ChatGPT export (its file name changes with
 * every export, and the same label is what maps a newer export onto the same connection), else the file
 * name.
 */
export function defaultConnectionLabel(kind: ImportKind, path: string): string {
  return kind === "chatgpt" ? "ChatGPT" : basename(path);
}

export async function importFile(api: OwnerApi, options: ImportFileOptions): Promise<ImportFileResult> {
  const source: ImportSource<RunnableItem> =
    options.kind === "mbox" && options.parseInWorker !== false
      ? openMboxWorkerSource(options.path)
      : await openSource(options.kind, options.path, options.generic);
  const connectionLabel = options.connectionLabel ?? defaultConnectionLabel(options.kind, options.path);
  const before = await connectionIdsOf(api, source.manifest.connector_key);
  // The sink (manifest registration, connection) opens with the first storable batch: a file that
  // yields nothing (the wrong format, say) leaves neither an inferred connector nor an empty account.
  let opened: OwnerSink | null = null;
  const sink: ImportSink = {
    async write(stream, records) {
      opened ??= await openOwnerSink(api, { manifest: source.manifest, connectionLabel });
      return opened.write(stream, records);
    },
  };
  const onProgress = options.onProgress;
  const summary = await runImport({
    source: source.items,
    sink,
    batchSize: options.batchSize,
    onProgress: onProgress
      ? (p) => onProgress({ ...p, bytesRead: source.bytesRead(), totalBytes: source.totalBytes })
      : undefined,
  });
  const stored = summary.added + summary.updated + summary.unchanged;
  const written = opened as OwnerSink | null;
  const connectionRemoved = stored === 0 && (written === null || !before.has(written.connectionId));
  if (connectionRemoved && written) await deleteConnection(api, written.connectionId);
  return {
    ...summary,
    connectionId: written?.connectionId ?? null,
    connectorKey: source.manifest.connector_key,
    connectionLabel,
    manifest: source.manifest,
    connectionRemoved,
  };
}
