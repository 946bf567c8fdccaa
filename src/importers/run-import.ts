// The shared import runner: batches records per stream, writes each batch through the sink, tallies the outcome.
import { recordJson } from "./record-json.js";
import {
  type ImportCounts,
  type ImportProgress,
  type ImportRecord,
  type ImportRejection,
  type ImportSink,
  type ImportSummary,
  type RunnableItem,
  SerializedRecord,
} from "./types.js";

/**
 * Records per batch (one transaction). Commits are what an import pays for: each writes every index
 * page the batch dirtied, and time-keyed indexes spread a batch over the whole index, so 500-row
 * batches cost twice the CPU of 20,000-row ones (bench/import-jsonl.ts measures both).
 */
export const DEFAULT_BATCH_SIZE = 20_000;
/**
 * JSON characters per batch, whatever the count: batches of large records (mail bodies, chat logs)
 * commit early, so the records held for one batch stay bounded in memory.
 */
export const DEFAULT_BATCH_CHARS = 4 * 1024 * 1024;
/** Rejections kept in the summary; the count is always exact. */
export const MAX_REPORTED_REJECTIONS = 100;

export interface RunImportOptions {
  source: AsyncIterable<RunnableItem>;
  sink: ImportSink;
  batchSize?: number;
  /** JSON characters that close a batch early (default DEFAULT_BATCH_CHARS). */
  batchChars?: number;
  onProgress?: (progress: ImportProgress) => void;
}

interface Pending {
  records: ImportRecord[];
  positions: string[];
  chars: number;
}

const zeroCounts = (): ImportCounts => ({ added: 0, updated: 0, unchanged: 0, rejected: 0 });

/**
 * Read every item, write full batches as they fill (by count or by JSON size; one sink call = one
 * transaction), flush the rest at the end. A malformed item is counted as rejected with its position and skipped; it never aborts the run.
 */
export async function runImport(options: RunImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const batchChars = Math.max(1, options.batchChars ?? DEFAULT_BATCH_CHARS);
  const totals = zeroCounts();
  const perStream: Record<string, ImportCounts> = {};
  const rejections: ImportRejection[] = [];
  const repairs: ImportRejection[] = [];
  let repaired = 0;
  const pending = new Map<string, Pending>();
  let read = 0;
  let batches = 0;

  const reject = (rejection: ImportRejection, stream?: string) => {
    totals.rejected++;
    if (stream) perStream[stream]!.rejected++;
    if (rejections.length < MAX_REPORTED_REJECTIONS) rejections.push(rejection);
  };
  const progress = () => options.onProgress?.({ ...totals, read, batches });

  const flush = async (stream: string) => {
    const batch = pending.get(stream);
    if (!batch || batch.records.length === 0) return;
    pending.delete(stream);
    const result = await options.sink.write(stream, batch.records);
    batches++;
    const counts = perStream[stream]!;
    // The store counts a delete of an absent record as unchanged: it is no record of the import's.
    const deletes = batch.records.filter((r) => r instanceof SerializedRecord && r.op === "delete").length;
    const deleted = result.deleted ?? 0;
    const ran = { ...result, unchanged: result.unchanged - (deletes - deleted) };
    for (const key of ["added", "updated", "unchanged"] as const) {
      counts[key] += ran[key];
      totals[key] += ran[key];
    }
    if (deleted > 0) {
      counts.deleted = (counts.deleted ?? 0) + deleted;
      totals.deleted = (totals.deleted ?? 0) + deleted;
    }
    for (const r of result.rejected) {
      reject(
        {
          position: batch.positions[r.index] ?? `${stream} batch ${batches} item ${r.index}`,
          reason: r.reason,
        },
        stream,
      );
    }
    progress();
  };

  for await (const item of options.source) {
    if ("error" in item) {
      reject({ position: item.position, reason: item.error });
      progress();
      continue;
    }
    const isDelete = "op" in item && item.op === "delete";
    if (!isDelete) read++;
    perStream[item.stream] ??= zeroCounts();
    let batch = pending.get(item.stream);
    if (!batch) {
      batch = { records: [], positions: [], chars: 0 };
      pending.set(item.stream, batch);
    }
    // Held as JSON text (the sink writes JSON anyway): compact while the batch fills, and its size is
    // known, so a batch of big records closes early.
    const built = "json" in item ? item : recordJson(item.data);
    const position = item.position ?? `${item.stream} record ${read}`;
    if (built.repaired) {
      repaired++;
      if (repairs.length < MAX_REPORTED_REJECTIONS) repairs.push({ position, reason: built.repaired });
    }
    batch.records.push(
      new SerializedRecord(
        built.json,
        "json" in item ? item.prepared : undefined,
        isDelete ? "delete" : "upsert",
      ),
    );
    batch.chars += built.json.length;
    batch.positions.push(position);
    if (batch.records.length >= batchSize || batch.chars >= batchChars) await flush(item.stream);
  }
  for (const stream of [...pending.keys()]) await flush(stream);

  return {
    ...totals,
    read,
    perStream,
    rejections,
    repaired,
    repairs,
    batches,
    durationMs: Date.now() - started,
  };
}
