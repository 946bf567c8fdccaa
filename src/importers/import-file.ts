// One call to import a file of any supported format into a connection: open the reader, open the owner
// sink, run the batches. Shared by `pdpp import`, `pdpp demo` and the benchmarks.
import type { Manifest } from "../core/manifest.js";
import type { GenericOptions, GenericSource } from "./generic.js";
import { openGenericWorkerSource, PREPARE_IN_WORKER_MIN_BYTES } from "./generic-worker-source.js";
import { withSkipped } from "./log-dir.js";
import {
  connectionIdsOf,
  deleteConnection,
  type OwnerApi,
  type OwnerSink,
  openOwnerSink,
} from "./owner-sink.js";
import { preparedItems } from "./prepared-items.js";
import { defaultConnectionLabel, findFormat, IMPORT_FORMATS } from "./registry.js";
import { runImport } from "./run-import.js";
import { openSourceWorker } from "./source-worker.js";
import type { ImportProgress, ImportSink, ImportSummary, SkippedReport } from "./types.js";

export { defaultConnectionLabel } from "./registry.js";

/** The name of a registered format (registry.ts): mbox, chatgpt, jsonl, json, csv, … */
export type ImportKind = string;
export const IMPORT_KINDS: readonly string[] = IMPORT_FORMATS.map((f) => f.name);

export interface ImportFileOptions {
  kind: ImportKind;
  path: string;
  /** The account label of the connection (default: see defaultConnectionLabel). */
  connectionLabel?: string;
  generic?: GenericOptions;
  /** The format's own flags (registry FormatFlag), by camelCase name. */
  flags?: Record<string, unknown>;
  batchSize?: number;
  /** Parse mbox in a worker thread, overlapping the store's writes (default true). */
  parseInWorker?: boolean;
  /**
   * Into the in-process SQLite store (api.ingestPrepared): read, validate and prepare the records in
   * a worker thread, overlapping the writes. jsonl / json / csv: default on for files of at least
   * PREPARE_IN_WORKER_MIN_BYTES; the formats that may be read in a worker (ImportFormat.readInWorker):
   * only when true.
   */
  prepareInWorker?: boolean;
  /**
   * In-process SQLite, records not prepared in a worker: prepare each record as it is read
   * (prepared-items.ts) instead of parsing its JSON back and preparing it in applyBatch. Off by
   * default: on the main thread the prepared ops a filling batch holds cost more in garbage
   * collection than the parse saves (issue 19: ical -11%, codex ±0-8% records per CPU-second);
   * it is the half a worker thread would run.
   */
  prepareAsRead?: boolean;
  /** Where folder importers keep per-connection file state (<home>/import-state); none: read every file. */
  stateDir?: string;
  onProgress?: (progress: ImportProgress & { bytesRead: number; totalBytes: number | null }) => void;
}

export interface ImportFileResult extends ImportSummary {
  /** Null when nothing was stored and no connection was ever opened. */
  connectionId: string | null;
  connectorKey: string;
  connectionLabel: string;
  /** The manifest the records were written under (the inferred one with --infer). */
  manifest: Manifest;
  /** Folder importers: files read, and files skipped as unchanged since the last import. */
  files?: SkippedReport;
  /** What the source wants the summary to say (skipped parts, …). */
  notes: string[];
  /** True when the import stored nothing: no new connection (or inferred connector) is left behind. */
  connectionRemoved: boolean;
}

export async function importFile(api: OwnerApi, options: ImportFileOptions): Promise<ImportFileResult> {
  const format = findFormat(options.kind);
  const found = await format.open(options.path, {
    generic: options.generic,
    flags: options.flags,
    parseInWorker: options.parseInWorker,
  });
  const reopen = (found as Partial<GenericSource>).reopen;
  // Formats read in a worker only on request: measured on claude-code's 100 MB bench input, the
  // records crossing the thread boundary (JSON, payload, texts, search values) cost more CPU than
  // the parse they save, 6,717 against 8,339 records per CPU-second over every thread (issue 19).
  const inWorker =
    api.ingestPrepared !== undefined &&
    (reopen !== undefined
      ? (options.prepareInWorker ?? (found.totalBytes ?? 0) >= PREPARE_IN_WORKER_MIN_BYTES)
      : format.readInWorker === true && options.prepareInWorker === true);
  const source = !inWorker
    ? found
    : reopen !== undefined
      ? openGenericWorkerSource(found as GenericSource)
      : openSourceWorker(found, { kind: options.kind, path: options.path, flags: options.flags });
  const connectionLabel = options.connectionLabel ?? defaultConnectionLabel(options.kind, options.path);
  const before = await connectionIdsOf(api, source.manifest.connector_key);
  await source.prepare?.({ api, connectionLabel, stateDir: options.stateDir });
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
  const items =
    options.prepareAsRead && api.ingestPrepared && !inWorker
      ? preparedItems(source.items, source.manifest)
      : source.items;
  const ran = await runImport({
    source: items,
    sink,
    batchSize: options.batchSize,
    onProgress: onProgress
      ? (p) => onProgress({ ...p, bytesRead: source.bytesRead(), totalBytes: source.totalBytes })
      : undefined,
  });
  const files = source.skipped?.();
  const summary = files ? withSkipped(ran, files) : ran;
  const stored = summary.added + summary.updated + summary.unchanged;
  const written = opened as OwnerSink | null;
  const connectionRemoved = stored === 0 && (written === null || !before.has(written.connectionId));
  if (connectionRemoved && written) await deleteConnection(api, written.connectionId);
  // Only now, with every batch committed, may the files read be remembered as read.
  if (!connectionRemoved) await source.commit?.(ran.rejections);
  return {
    ...summary,
    connectionId: written?.connectionId ?? files?.connectionId ?? null,
    connectorKey: source.manifest.connector_key,
    connectionLabel,
    manifest: source.manifest,
    notes: source.notes?.() ?? [],
    connectionRemoved,
    ...(files ? { files } : {}),
  };
}
