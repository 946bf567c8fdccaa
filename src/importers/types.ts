// Shared shapes of the importers: what a format reader yields, what the runner writes to, what it reports.
import type { Manifest } from "../core/manifest.js";
import type { PreparedOp } from "../store/sqlite/ingest-prepare.js";
import type { OwnerApi } from "./owner-sink.js";

/**
 * One record for a stream, or a malformed input unit that is reported and skipped. `op: "delete"` removes
 * the record whose primary key `data` holds (a recurrence no longer in a series, a record an earlier
 * import misread); removing an absent record is a no-op.
 */
export type ImportItem =
  | { stream: string; data: Record<string, unknown>; position?: string; op?: "upsert" | "delete" }
  | { error: string; position: string };

/** A record whose data comes as JSON object text, built once off the main thread (the mbox worker). */
export interface SerializedItem {
  stream: string;
  json: string;
  position?: string;
  /** Validated and prepared off the main thread for the in-process SQLite store (prepared-source.ts). */
  prepared?: PreparedRecord;
  /** What record-json.ts repaired in the record, when anything. */
  repaired?: string;
  /** A delete of the record whose primary key `json` holds (default upsert). */
  op?: "upsert" | "delete";
}

/**
 * A record as SQLite's applyBatch would prepare it from `json` (ingest-prepare.ts), or the reason it
 * would reject it, under the stream definition whose streamDefKey is `defKey`.
 */
export interface PreparedRecord {
  defKey: string;
  op: PreparedOp | { reason: string };
}

/** What the runner reads: plain items, or serialized ones from a worker-backed source. */
export type RunnableItem = ImportItem | SerializedItem;

/** A record whose data is already JSON text: the sink writes it as is instead of serializing again. */
export class SerializedRecord {
  constructor(
    readonly json: string,
    readonly prepared?: PreparedRecord,
    readonly op: "upsert" | "delete" = "upsert",
  ) {}
}

/** What a sink is given per record: the data object, or its JSON text. */
export type ImportRecord = Record<string, unknown> | SerializedRecord;

/** What one written batch did (the RS ingest answer, per stream). */
export interface SinkBatchResult {
  added: number;
  updated: number;
  unchanged: number;
  /** Records removed by delete ops (a delete of an absent record counts nowhere). */
  deleted?: number;
  /** Records refused by the sink; `index` is the 0-based position in the batch. */
  rejected: { index: number; reason: string }[];
}

/** Where the runner writes: one connection, one batch per call, each batch all-or-nothing. */
export interface ImportSink {
  write(stream: string, records: ImportRecord[]): Promise<SinkBatchResult>;
}

export interface ImportRejection {
  position: string;
  reason: string;
}

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Records removed by the import's delete ops. */
  deleted?: number;
}

export interface ImportSummary extends ImportCounts {
  /** Records read from the source (valid items only). */
  read: number;
  perStream: Record<string, ImportCounts>;
  /** The first rejections (capped so a bad file cannot blow memory); `rejected` has the total. */
  rejections: ImportRejection[];
  /** Records stored with unstorable characters repaired (record-json.ts), and the first of them. */
  repaired: number;
  repairs: ImportRejection[];
  batches: number;
  durationMs: number;
}

export interface ImportProgress extends ImportCounts {
  read: number;
  batches: number;
}

/** A reader over one input file: the records, the manifest they belong to, and bytes consumed. */
export interface ImportSource<Item extends RunnableItem = ImportItem> {
  manifest: Manifest;
  items: AsyncIterable<Item>;
  /** Bytes of the input consumed so far (for progress); totalBytes is the file size when known. */
  bytesRead(): number;
  totalBytes: number | null;
  /** Lines for the summary once the items are read (e.g. the parts of a Takeout that were skipped). */
  notes?: () => string[];
  /** Present on directory sources that skip files unchanged since the last import. */
  prepare?: IncrementalSource["prepare"];
  commit?: IncrementalSource["commit"];
  skipped?: IncrementalSource["skipped"];
  /** What a source read in a worker thread hands between its two copies (source-worker.ts). */
  handoff?: SourceHandoff;
}

/**
 * A source whose items are read by a copy of it in a worker thread (source-worker.ts) while the main
 * thread's copy runs prepare, commit and skipped: what each copy needs from the other, as plain data.
 */
export interface SourceHandoff {
  /** Main thread, after prepare: what the worker's copy needs of what prepare found. */
  prepared(): unknown;
  /** Worker thread, before the first item. */
  resume(prepared: unknown): void;
  /** Worker thread, after the last item: what commit and skipped need of the reading. */
  finished(): unknown;
  /** Main thread, once the worker is done. */
  adopt(finished: unknown): void;
}

/** What an incremental source is told before it is read: where the connection's file state lives. */
export interface IncrementalContext {
  api: OwnerApi;
  connectionLabel: string;
  /** Directory of per-connection import state; without it every file is read. */
  stateDir?: string;
}

/** What an incremental source skipped because its files were unchanged since the last import. */
export interface SkippedReport {
  files: number;
  /** Files read (changed or new). */
  filesRead: number;
  /** Rejections the skipped files had when they were read: reported again, as they still stand. */
  rejected: number;
  rejections: ImportRejection[];
  /** Records of the skipped files, per stream: they count as unchanged. */
  records: Record<string, number>;
  /** The connection the state belongs to (known before the import writes anything). */
  connectionId: string | null;
}

/** Sources over many files that can skip the ones an earlier import already read. */
export interface IncrementalSource {
  prepare(context: IncrementalContext): Promise<void>;
  /** Persist what was read (and what of it was rejected); called only after every batch is committed. */
  commit(rejections: readonly ImportRejection[]): Promise<void>;
  skipped(): SkippedReport;
}
