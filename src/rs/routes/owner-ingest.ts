// POST /v1/owner/connections/{id}/streams/{stream}/records: NDJSON ingest, one {op, data} per
// line; malformed lines are reported by line number, the valid rest commits all-or-nothing.
//
// Decisions where 20-rs-api.md is silent:
// - "All-or-nothing per request" is read with the Store contract: lines that fail to parse or
//   validate are rejected up front (listed with their 1-based line number and reason, never
//   applied), and every remaining op commits in one transaction or none does.
// - Blank lines and a trailing CR are ignored. The answer is `{object:"ingest_result",
//   connection_id, stream, added, updated, unchanged, deleted, rejected:[{line, reason}],
//   rejected_count}`; `rejected` lists at most 1,000 lines, `rejected_count` is exact.
// - The body is limited to 64 MiB (413 payload_too_large naming it).
import type { Hono } from "hono";
import { connectionNotFound, streamNotFound } from "../../core/grant-scope.js";
import { STREAM_NAME_RE } from "../../core/ids.js";
import type { IngestOp } from "../../store/store.js";
import { MAX_INGEST_BODY_BYTES, readBodyText } from "../body.js";
import type { RsEnv } from "../env.js";
import { checkConnectionId } from "./owner-common.js";

/** How many rejected lines an answer lists (the count is always exact). */
const MAX_REPORTED_REJECTIONS = 1000;

export interface ParsedNdjson {
  ops: IngestOp[];
  /** 1-based line number of each op in `ops`. */
  lines: number[];
  rejected: { line: number; reason: string }[];
}

function parseLine(text: string): IngestOp | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "must be a JSON object {op, data}";
  const { op, data, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    return `unknown member ${JSON.stringify(Object.keys(rest)[0].slice(0, 64))}`;
  if (op !== "upsert" && op !== "delete") return 'op must be "upsert" or "delete"';
  if (typeof data !== "object" || data === null || Array.isArray(data)) return "data must be a JSON object";
  return { op, data: data as Record<string, unknown> };
}

export function parseNdjson(text: string): ParsedNdjson {
  const out: ParsedNdjson = { ops: [], lines: [], rejected: [] };
  const rows = text.split("\n");
  rows.forEach((row, i) => {
    const line = row.endsWith("\r") ? row.slice(0, -1) : row;
    if (line.trim() === "") return;
    const parsed = parseLine(line);
    if (typeof parsed === "string") out.rejected.push({ line: i + 1, reason: parsed });
    else {
      out.ops.push(parsed);
      out.lines.push(i + 1);
    }
  });
  return out;
}

export function registerOwnerIngest(app: Hono<RsEnv>): void {
  app.post("/v1/owner/connections/:id/streams/:stream/records", async (c) => {
    const id = checkConnectionId(c.req.param("id"));
    const stream = c.req.param("stream");
    const { store } = c.get("deps");
    const connection = await store.getConnection(id);
    if (!connection) throw connectionNotFound();
    const manifest = STREAM_NAME_RE.test(stream) ? await store.getManifest(connection.connector_key) : null;
    if (!manifest?.streams.some((s) => s.name === stream)) throw streamNotFound();
    const parsed = parseNdjson(await readBodyText(c.req.raw, MAX_INGEST_BODY_BYTES));
    const result =
      parsed.ops.length > 0
        ? await store.applyBatch(id, stream, parsed.ops)
        : { added: 0, updated: 0, unchanged: 0, deleted: 0, rejected: [] };
    const rejected = [
      ...parsed.rejected,
      ...result.rejected.map((r) => ({ line: parsed.lines[r.index], reason: r.reason })),
    ].sort((a, b) => a.line - b.line);
    return c.json({
      object: "ingest_result",
      connection_id: id,
      stream,
      added: result.added,
      updated: result.updated,
      unchanged: result.unchanged,
      deleted: result.deleted,
      rejected: rejected.slice(0, MAX_REPORTED_REJECTIONS),
      rejected_count: rejected.length,
    });
  });
}
