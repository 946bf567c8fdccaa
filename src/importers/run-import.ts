// The shared import runner: batches records per stream, writes each batch through the sink, tallies the outcome.
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

export const DEFAULT_BATCH_SIZE = 500;
/** Rejections kept in the summary; the count is always exact. */
export const MAX_REPORTED_REJECTIONS = 100;

export interface RunImportOptions {
  source: AsyncIterable<RunnableItem>;
  sink: ImportSink;
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
}

interface Pending {
  records: ImportRecord[];
  positions: string[];
}

const zeroCounts = (): ImportCounts => ({ added: 0, updated: 0, unchanged: 0, rejected: 0 });

/**
 * Read every item, write full batches as they fill (one sink call = one transaction), flush the rest at the
 * end. A malformed item is counted as rejected with its position and skipped; it never aborts the run.
 */
export async function runImport(options: RunImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const totals = zeroCounts();
  const perStream: Record<string, ImportCounts> = {};
  const rejections: ImportRejection[] = [];
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
    for (const key of ["added", "updated", "unchanged"] as const) {
      counts[key] += result[key];
      totals[key] += result[key];
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
    read++;
    perStream[item.stream] ??= zeroCounts();
    let batch = pending.get(item.stream);
    if (!batch) {
      batch = { records: [], positions: [] };
      pending.set(item.stream, batch);
    }
    batch.records.push("json" in item ? new SerializedRecord(item.json) : item.data);
    batch.positions.push(item.position ?? `${item.stream} record ${read}`);
    if (batch.records.length >= batchSize) await flush(item.stream);
  }
  for (const stream of [...pending.keys()]) await flush(stream);

  return { ...totals, read, perStream, rejections, batches, durationMs: Date.now() - started };
}
