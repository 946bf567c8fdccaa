// Content-ladder entries (30-mcp.md "Content ladder"): for every cut text preview, the exact
// read_record_field continuation and a field-window resource URI.
import { blobUri, windowUri } from "./handles.js";

export type PreviewStatus = "complete" | "truncated" | "snippet_only" | "binary_only" | "unavailable";

export interface LadderEntry {
  id: string;
  connection_id: string;
  stream: string;
  record_id: string;
  field: { path: string; type: string; mime_type?: string; text_like: boolean; size_chars?: number };
  /** start/end: the code points of the field the preview shows (absent when not a range of it). */
  preview: { status: PreviewStatus; start_chars?: number; end_chars?: number };
  /** Absent only for binary fields: their bytes have no window (Tier 4: metadata and a handle). */
  continue?: { tool: "read_record_field"; args: Record<string, string | number> };
  resource_uri: string;
  digest?: string;
}

export interface LadderSource {
  id: string;
  connection_id: string;
  stream: string;
  record_id: string;
}

/** An entry for a text preview holding code points [0, shown) of a field of `sizeChars`. */
export function truncatedEntry(
  record: LadderSource,
  field: {
    path: string;
    sizeChars: number;
    shown: number;
    digest?: string;
    mimeType?: string;
    /** "array"/"object" for a value previewed as its canonical JSON (text_like false). */
    type?: string;
    textLike?: boolean;
  },
): LadderEntry {
  const entry: LadderEntry = {
    id: record.id,
    connection_id: record.connection_id,
    stream: record.stream,
    record_id: record.record_id,
    field: {
      path: field.path,
      type: field.type ?? "string",
      text_like: field.textLike ?? true,
      size_chars: field.sizeChars,
    },
    preview: { status: "truncated", start_chars: 0, end_chars: field.shown },
    continue: {
      tool: "read_record_field",
      args: { id: record.id, field_path: field.path, offset_chars: field.shown },
    },
    resource_uri: windowUri({
      c: record.connection_id,
      s: record.stream,
      r: record.record_id,
      f: field.path,
      w: { o: field.shown },
    }),
  };
  if (field.mimeType) entry.field.mime_type = field.mimeType;
  if (field.digest) entry.digest = field.digest;
  return entry;
}

/**
 * An entry for a search snippet: the continuation is a q-centred window around the match. The
 * preview range is the part of the field the snippet shows, when the RS knows it (a list or number
 * shown as text has none); never a made-up 0/0.
 */
export function snippetEntry(
  record: LadderSource,
  field: {
    path: string;
    q: string;
    sizeChars?: number;
    digest?: string;
    mimeType?: string;
    range?: { start: number; end: number };
  },
): LadderEntry {
  const entry: LadderEntry = {
    id: record.id,
    connection_id: record.connection_id,
    stream: record.stream,
    record_id: record.record_id,
    field: {
      path: field.path,
      type: "string",
      text_like: true,
      ...(field.sizeChars !== undefined ? { size_chars: field.sizeChars } : {}),
    },
    preview: {
      status: "snippet_only",
      ...(field.range ? { start_chars: field.range.start, end_chars: field.range.end } : {}),
    },
    continue: { tool: "read_record_field", args: { id: record.id, field_path: field.path, q: field.q } },
    resource_uri: windowUri({
      c: record.connection_id,
      s: record.stream,
      r: record.record_id,
      f: field.path,
      w: { o: 0 },
    }),
  };
  if (field.digest) entry.digest = field.digest;
  if (field.mimeType) entry.field.mime_type = field.mimeType;
  return entry;
}

/**
 * An entry for a binary field: MIME type, size, digest and a pdpp://blob handle whose resources/read
 * returns the bytes (in ranges, each naming the next); never the bytes themselves.
 */
export function binaryEntry(
  record: LadderSource,
  field: { path: string; sizeChars: number; digest?: string; mimeType?: string },
): LadderEntry {
  const entry: LadderEntry = {
    id: record.id,
    connection_id: record.connection_id,
    stream: record.stream,
    record_id: record.record_id,
    field: { path: field.path, type: "binary", text_like: false, size_chars: field.sizeChars },
    preview: { status: "binary_only", start_chars: 0, end_chars: 0 },
    resource_uri: blobUri({
      c: record.connection_id,
      s: record.stream,
      r: record.record_id,
      f: field.path,
      o: 0,
    }),
  };
  if (field.digest) entry.digest = field.digest;
  if (field.mimeType) entry.field.mime_type = field.mimeType;
  return entry;
}
