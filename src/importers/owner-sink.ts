// An ImportSink over the RS owner API: registers the manifest, ensures the connection, and writes each
// batch as one transaction — one NDJSON request over HTTP, or, in-process, straight to the store's
// applyBatch with the same per-line checks the NDJSON route makes (no request/response serialisation).
import { clipText } from "../core/clip-text.js";
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import type { Manifest } from "../core/manifest.js";
import type { PreparedOp } from "../store/sqlite/ingest-prepare.js";
import type { IngestOp, IngestResult } from "../store/store.js";
import { type ImportSink, type PreparedRecord, SerializedRecord, type SinkBatchResult } from "./types.js";

export interface OwnerApi {
  fetch: (request: Request) => Promise<Response>;
  baseUrl: string;
  ownerToken: string;
  /**
   * In-process only: the store's own applyBatch (the function the NDJSON route calls). When present,
   * batches skip the HTTP round trip; connectors and connections still go through `fetch`.
   */
  ingest?: (connectionId: string, stream: string, ops: IngestOp[]) => Promise<IngestResult>;
  /**
   * In-process SQLite only: apply records already prepared off the main thread (PreparedRecord);
   * null when the store's stream definition is no longer the one they were prepared under (the batch
   * then goes through `ingest` like any other).
   */
  ingestPrepared?: (
    connectionId: string,
    stream: string,
    batch: { defKey: string; ops: PreparedOp[] },
  ) => Omit<IngestResult, "rejected"> | null;
}

export interface OwnerSink extends ImportSink {
  connectionId: string;
  connectorKey: string;
}

/** Keep each request well under the RS's 64 MiB ingest limit; a bigger batch is split (each part atomic). */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** `{"op":"upsert","data":` + `}` + the newline: what the NDJSON line adds to a record's JSON. */
const UPSERT_LINE_OVERHEAD = 24;

type Op = "upsert" | "delete";

interface IngestAnswer {
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  rejected: { line: number; reason: string }[];
}

/** Register `manifest`, ensure the connection labelled `connectionLabel`, and return a sink writing to it. */
export async function openOwnerSink(
  api: OwnerApi,
  options: { manifest: Manifest; connectionLabel: string },
): Promise<OwnerSink> {
  await call(api, "POST", "/v1/owner/connectors", JSON.stringify(options.manifest), "application/json");
  const connection = (await call(
    api,
    "POST",
    "/v1/owner/connections",
    JSON.stringify({ connector_key: options.manifest.connector_key, display_name: options.connectionLabel }),
    "application/json",
  )) as { connection_id: string };
  const connectionId = connection.connection_id;

  const post = async (
    stream: string,
    lines: string[],
    prepared: (PreparedRecord | undefined)[],
    ops: Op[],
  ): Promise<SinkBatchResult> => {
    if (api.ingestPrepared) {
      const done = ingestPrepared(api.ingestPrepared, { connectionId, stream, prepared });
      if (done) return done;
    }
    if (api.ingest) return ingestDirect(api.ingest, { connectionId, stream, lines, ops });
    const path = `/v1/owner/connections/${connectionId}/streams/${encodeURIComponent(stream)}/records`;
    const answer = (await call(
      api,
      "POST",
      path,
      lines.map((json, i) => `{"op":"${ops[i]}","data":${json}}\n`).join(""),
      "application/x-ndjson",
    )) as IngestAnswer;
    return {
      added: answer.added,
      updated: answer.updated,
      unchanged: answer.unchanged,
      deleted: answer.deleted,
      rejected: answer.rejected.map((r) => ({ index: r.line - 1, reason: r.reason })),
    };
  };

  return {
    connectionId,
    connectorKey: options.manifest.connector_key,
    async write(stream, records) {
      const total: SinkBatchResult = { added: 0, updated: 0, unchanged: 0, deleted: 0, rejected: [] };
      let lines: string[] = [];
      let prepared: (PreparedRecord | undefined)[] = [];
      let ops: Op[] = [];
      let bytes = 0;
      let first = 0; // index in `records` of lines[0]
      const flush = async () => {
        if (lines.length === 0) return;
        const part = await post(stream, lines, prepared, ops);
        total.added += part.added;
        total.updated += part.updated;
        total.unchanged += part.unchanged;
        total.deleted = (total.deleted ?? 0) + (part.deleted ?? 0);
        for (const r of part.rejected) total.rejected.push({ index: r.index + first, reason: r.reason });
        first += lines.length;
        lines = [];
        prepared = [];
        ops = [];
        bytes = 0;
      };
      for (const data of records) {
        // A serialized record is spliced in as is: its JSON text was built once (off the main thread
        // for mbox). The size counted is the NDJSON line's, on both paths, so batches split alike.
        const json = data instanceof SerializedRecord ? data.json : JSON.stringify(data);
        const size = Buffer.byteLength(json) + UPSERT_LINE_OVERHEAD;
        if (size > MAX_REQUEST_BYTES) {
          await flush();
          total.rejected.push({
            index: first,
            reason: `record is ${size} bytes; the ingest limit is ${MAX_REQUEST_BYTES}`,
          });
          first++;
          continue;
        }
        if (bytes + size > MAX_REQUEST_BYTES) await flush();
        lines.push(json);
        prepared.push(data instanceof SerializedRecord ? data.prepared : undefined);
        ops.push(data instanceof SerializedRecord ? data.op : "upsert");
        bytes += size;
      }
      await flush();
      return total;
    },
  };
}

/**
 * One batch straight into the store: each record's JSON is parsed exactly as the NDJSON route parses
 * its line (so the store sees the same plain JSON values, never an importer's Date or undefined), then
 * every valid op goes to applyBatch — one transaction, all or nothing — and rejections keep their index.
 */
async function ingestDirect(
  ingest: NonNullable<OwnerApi["ingest"]>,
  batch: { connectionId: string; stream: string; lines: string[]; ops: Op[] },
): Promise<SinkBatchResult> {
  const ops: IngestOp[] = [];
  const indexOf: number[] = [];
  const rejected: { index: number; reason: string }[] = [];
  batch.lines.forEach((json, index) => {
    let data: unknown;
    try {
      data = JSON.parse(json);
    } catch {
      rejected.push({ index, reason: "not valid JSON" });
      return;
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      rejected.push({ index, reason: "data must be a JSON object" });
      return;
    }
    ops.push({ op: batch.ops[index] ?? "upsert", data: data as Record<string, unknown> });
    indexOf.push(index);
  });
  const result =
    ops.length > 0
      ? await ingest(batch.connectionId, batch.stream, ops)
      : { added: 0, updated: 0, unchanged: 0, deleted: 0, rejected: [] };
  for (const r of result.rejected) rejected.push({ index: indexOf[r.index]!, reason: r.reason });
  rejected.sort((a, b) => a.index - b.index);
  return {
    added: result.added,
    updated: result.updated,
    unchanged: result.unchanged,
    deleted: result.deleted,
    rejected,
  };
}

/**
 * One batch of records prepared off the main thread (ingest-prepare.ts ran on the same JSON text
 * ingestDirect would parse): the same rejections at the same indexes, the valid ops applied in one
 * transaction. Null when a record was not prepared, or the store's stream definition changed since.
 */
function ingestPrepared(
  ingest: NonNullable<OwnerApi["ingestPrepared"]>,
  batch: { connectionId: string; stream: string; prepared: (PreparedRecord | undefined)[] },
): SinkBatchResult | null {
  const defKey = batch.prepared[0]?.defKey;
  if (defKey === undefined) return null;
  const ops: PreparedOp[] = [];
  const rejected: { index: number; reason: string }[] = [];
  for (let index = 0; index < batch.prepared.length; index++) {
    const record = batch.prepared[index];
    if (record?.defKey !== defKey) return null;
    if ("reason" in record.op) rejected.push({ index, reason: record.op.reason });
    else ops.push(record.op);
  }
  if (ops.length === 0) return { added: 0, updated: 0, unchanged: 0, rejected };
  const result = ingest(batch.connectionId, batch.stream, { defKey, ops });
  if (!result) return null;
  return {
    added: result.added,
    updated: result.updated,
    unchanged: result.unchanged,
    deleted: result.deleted,
    rejected,
  };
}

/** The connection ids of one connector, to tell a new connection from an existing one. */
export async function connectionIdsOf(api: OwnerApi, connectorKey: string): Promise<Set<string>> {
  const answer = (await call(api, "GET", "/v1/owner/connections", undefined, "application/json")) as {
    data: { connection_id: string; connector_key: string }[];
  };
  return new Set(answer.data.filter((c) => c.connector_key === connectorKey).map((c) => c.connection_id));
}

export async function deleteConnection(api: OwnerApi, connectionId: string): Promise<void> {
  await call(api, "DELETE", `/v1/owner/connections/${connectionId}`, undefined, "application/json");
}

async function call(
  api: OwnerApi,
  method: string,
  path: string,
  body: string | undefined,
  contentType: string,
): Promise<unknown> {
  const request = new Request(new URL(path, api.baseUrl), {
    method,
    headers: { authorization: `Bearer ${api.ownerToken}`, "content-type": contentType },
    body,
  });
  const response = await api.fetch(request);
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // A non-JSON answer is reported below by status.
  }
  if (response.ok) return parsed;
  const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
  const code: ErrorCode =
    error?.code && error.code in ERROR_CODES ? (error.code as ErrorCode) : "internal_error";
  throw new PdppError(
    code,
    `${method} ${path} failed (${response.status}): ${error?.message ?? clipText(text, 200)}`,
  );
}
