// One call to import a file of any supported format into a connection: open the reader, open the owner
// sink, run the batches. Shared by `pdpp import`, `pdpp demo` and the benchmarks.
import { basename } from "node:path";
import type { Manifest } from "../core/manifest.js";
import { openChatgptSource } from "./chatgpt.js";
import { openClaudeSource } from "./claude.js";
import { defaultClaudeCodeDir, openClaudeCodeSource } from "./claude-code.js";
import { defaultCodexDir, openCodexSource } from "./codex.js";
import { openCsvSource } from "./csv.js";
import type { GenericOptions } from "./generic.js";
import { openJsonSource } from "./json.js";
import { openJsonlSource } from "./jsonl.js";
import { withSkipped } from "./log-dir.js";
import { openMboxSource } from "./mbox.js";
import { openMboxWorkerSource } from "./mbox-worker-source.js";
import { connectionIdsOf, deleteConnection, type OwnerApi, openOwnerSink } from "./owner-sink.js";
import { runImport } from "./run-import.js";
import type { ImportProgress, ImportSource, ImportSummary, RunnableItem, SkippedReport } from "./types.js";

export const IMPORT_KINDS = [
  "mbox",
  "chatgpt",
  "claude",
  "claude-code",
  "codex",
  "jsonl",
  "json",
  "csv",
] as const;
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
    case "claude":
      return openClaudeSource(path);
    case "claude-code":
      return openClaudeCodeSource(path);
    case "codex":
      return openCodexSource(path);
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
  /** Where directory importers keep per-connection file state (<home>/import-state); none: read all. */
  stateDir?: string;
  onProgress?: (progress: ImportProgress & { bytesRead: number; totalBytes: number | null }) => void;
}

export interface ImportFileResult extends ImportSummary {
  connectionId: string;
  connectorKey: string;
  connectionLabel: string;
  /** The manifest the records were written under (the inferred one with --infer). */
  manifest: Manifest;
  /** Directory importers: files read and files skipped as unchanged since the last import. */
  files?: SkippedReport;
  /** True when the import stored nothing and the connection it had just created was removed again. */
  connectionRemoved: boolean;
}

/**
 * The label when --connection is not given: "ChatGPT" for a ChatGPT export (its file name changes with
 * every export, and the same label is what maps a newer export onto the same connection), else the file
 * name.
 */
export function defaultConnectionLabel(kind: ImportKind, path: string): string {
  return DEFAULT_LABELS[kind] ?? basename(path);
}

/** Exports and logs of one account whose file or folder names change: the label maps them together. */
const DEFAULT_LABELS: Partial<Record<ImportKind, string>> = {
  chatgpt: "ChatGPT",
  claude: "Claude",
  "claude-code": "Claude Code",
  codex: "Codex",
};

/** The folder read when `pdpp import claude-code|codex` is given none. */
export function defaultImportPath(kind: ImportKind): string | null {
  if (kind === "claude-code") return defaultClaudeCodeDir();
  if (kind === "codex") return defaultCodexDir();
  return null;
}

export async function importFile(api: OwnerApi, options: ImportFileOptions): Promise<ImportFileResult> {
  const source: ImportSource<RunnableItem> =
    options.kind === "mbox" && options.parseInWorker !== false
      ? openMboxWorkerSource(options.path)
      : await openSource(options.kind, options.path, options.generic);
  const connectionLabel = options.connectionLabel ?? defaultConnectionLabel(options.kind, options.path);
  const before = await connectionIdsOf(api, source.manifest.connector_key);
  await source.prepare?.({ api, connectionLabel, stateDir: options.stateDir });
  const sink = await openOwnerSink(api, { manifest: source.manifest, connectionLabel });
  const onProgress = options.onProgress;
  const ran = await runImport({
    source: source.items,
    sink,
    batchSize: options.batchSize,
    onProgress: onProgress
      ? (p) => onProgress({ ...p, bytesRead: source.bytesRead(), totalBytes: source.totalBytes })
      : undefined,
  });
  const files = source.skipped?.();
  const summary = files ? withSkipped(ran, files) : ran;
  // A file that yields nothing storable (the wrong format, say) must not leave an empty account behind.
  const stored = summary.added + summary.updated + summary.unchanged;
  const connectionRemoved = stored === 0 && !before.has(sink.connectionId);
  if (connectionRemoved) await deleteConnection(api, sink.connectionId);
  // Only now, with every batch committed, may the files read be remembered as read.
  else await source.commit?.();
  return {
    ...summary,
    connectionId: sink.connectionId,
    connectorKey: sink.connectorKey,
    connectionLabel,
    manifest: source.manifest,
    connectionRemoved,
    ...(files ? { files } : {}),
  };
}
