// Cutting record payloads to previews for either channel, remembering what was cut so every
// truncated preview gets a continuation (ladder entries, or `cut` notes in text).
import { canonicalJson } from "../canonical-json.js";
import { sha256Digest } from "../ids.js";
import type { FieldPreviewInfo, SchemaStream, WireRecord } from "../wire.js";
import { codePoints, sliceCodePoints } from "./budget.js";
import { binaryEntry, type LadderEntry, truncatedEntry } from "./ladder.js";

/** Binary fields of a stream row (path → MIME type when declared): never inlined (Tier 4). */
export type BinaryFields = Map<string, string | undefined>;

export function binaryFieldsOf(row: SchemaStream | undefined): BinaryFields {
  const out: BinaryFields = new Map();
  for (const [path, caps] of Object.entries(row?.fields ?? {}))
    if (caps.binary) out.set(path, caps.mime_type);
  return out;
}

/** Declared MIME types (contentMediaType) of a stream row's non-binary fields, by path. */
export function mimeTypesOf(row: SchemaStream | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, caps] of Object.entries(row?.fields ?? {}))
    if (!caps.binary && caps.mime_type) out.set(path, caps.mime_type);
  return out;
}

export interface BinaryField {
  path: string;
  sizeChars: number;
  /** Absent when the store left the bytes behind (it does not hash them on a read). */
  digest?: string;
  mimeType?: string;
}

/** What replaces a binary value in either channel: metadata only, never the (base64) bytes. */
export function binaryStub(b: BinaryField): Record<string, unknown> {
  return {
    binary: true,
    ...(b.mimeType ? { mime_type: b.mimeType } : {}),
    size_chars: b.sizeChars,
    ...(b.digest ? { digest: b.digest } : {}),
  };
}

export interface CutField {
  path: string;
  shown: number; // code points kept
  sizeChars: number;
  digest: string;
  /** Set for an array/object shown as a prefix of its canonical JSON (read_record_field's text). */
  json?: "array" | "object";
}

/**
 * A non-string value too large to preview whole: the first `maxChars` code points of its canonical
 * JSON (exactly what read_record_field windows for that path, so offset_chars:shown continues it).
 */
function jsonCut(
  value: object,
  path: string,
  bound: { maxChars: number; keep: number },
): { kept: string; cut: CutField } | null {
  const json = canonicalJson(value);
  const size = codePoints(json);
  if (size <= bound.keep) return null;
  const kept = sliceCodePoints(json, bound.maxChars);
  const cut: CutField = {
    path,
    shown: codePoints(kept),
    sizeChars: size,
    digest: sha256Digest(json),
    json: Array.isArray(value) ? "array" : "object",
  };
  return { kept, cut };
}

/** An object whose walked preview is still this much larger than the preview size is cut whole. */
const OBJECT_CUT_FACTOR = 4;

/**
 * True when a text field under `path` came from the RS already cut: the object here is not the
 * stored value, so its JSON (size, digest, prefix) would not be what read_record_field reads.
 */
export function holdsCutText(path: string, previews: Record<string, FieldPreviewInfo> | undefined): boolean {
  return Object.entries(previews ?? {}).some(([p, info]) => !info.complete && p.startsWith(`${path}.`));
}

/**
 * Cut every string in `data` (nested objects walked by dotted path) longer than `maxChars`.
 * `previews` are the RS's notes on fields it already cut (their true size and digest).
 */
export function cutPayload(
  data: Record<string, unknown>,
  maxChars: number,
  options: {
    previews?: Record<string, FieldPreviewInfo>;
    binary?: BinaryFields;
    /** How a binary value is shown; the structured stub by default. */
    stub?: (b: BinaryField) => unknown;
    /** Strings up to this many code points stay whole (cutting them would cost more than it saves). */
    keepShort?: number;
  } = {},
): { data: Record<string, unknown>; cut: CutField[]; binary: BinaryField[] } {
  const previews = options.previews ?? {};
  const cut: CutField[] = [];
  const binary: BinaryField[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (options.binary?.has(path) && value !== null && value !== undefined) {
        // With preview_chars the RS sends "" and the size in field_previews (item 7): the bytes
        // never left the store, so there is no digest to show.
        const known = previews[path];
        const raw = known ? "" : typeof value === "string" ? value : JSON.stringify(value);
        const b: BinaryField = {
          path,
          sizeChars: known ? known.size_chars : codePoints(raw),
          ...(known ? (known.digest ? { digest: known.digest } : {}) : { digest: sha256Digest(raw) }),
        };
        const mime = options.binary.get(path);
        if (mime) b.mimeType = mime;
        binary.push(b);
        out[key] = (options.stub ?? binaryStub)(b);
      } else if (typeof value === "string") {
        const known = previews[path];
        const size = known ? known.size_chars : codePoints(value);
        const incomplete = known ? !known.complete : false;
        if (size > Math.max(maxChars, options.keepShort ?? 0) || incomplete) {
          const kept = sliceCodePoints(value, maxChars);
          const shown = codePoints(kept);
          if (shown < size) {
            cut.push({ path, shown, sizeChars: size, digest: known?.digest ?? sha256Digest(value) });
          }
          out[key] = kept;
        } else {
          out[key] = value;
        }
      } else if (Array.isArray(value)) {
        // Array elements have no field path of their own: a long array is previewed as the start
        // of its canonical JSON, continued by read_record_field on the array's path.
        const c = jsonCut(value, path, { maxChars, keep: Math.max(maxChars, options.keepShort ?? 0) });
        if (c) cut.push(c.cut);
        out[key] = c ? c.kept : value;
      } else if (value && typeof value === "object") {
        const cutsBefore = cut.length;
        const binaryBefore = binary.length;
        const walked = walk(value as Record<string, unknown>, path);
        const keep = OBJECT_CUT_FACTOR * Math.max(maxChars, options.keepShort ?? 0) + 256;
        // Thousands of small members stay large after the walk: cut the object as JSON instead,
        // unless it holds a binary field (its JSON would carry the bytes) or RS-cut text.
        const c =
          binary.length === binaryBefore &&
          !holdsCutText(path, previews) &&
          JSON.stringify(walked).length > keep
            ? jsonCut(value, path, { maxChars, keep })
            : null;
        if (c) {
          cut.length = cutsBefore;
          cut.push(c.cut);
        }
        out[key] = c ? c.kept : walked;
      } else {
        out[key] = value;
      }
    }
    return out;
  };
  return { data: walk(data, ""), cut, binary };
}

/** The identity members of a wire record kept when `fields` narrows it. */
const IDENTITY_KEYS = ["object", "id", "stream", "record_id", "connection_id", "deleted"] as const;

/**
 * A record for the structured channel: payload cut to `maxChars`, ladder entries for each cut,
 * and (with `narrowed`) only identity members beside the projected data.
 */
export function previewRecord(
  record: WireRecord,
  options: { maxChars: number; narrowed: boolean; binary?: BinaryFields; mimeTypes?: Map<string, string> },
): { record: Record<string, unknown>; ladder: LadderEntry[] } {
  const { data, cut, binary } = cutPayload(record.data, options.maxChars, {
    previews: record.field_previews,
    binary: options.binary,
  });
  const base: Record<string, unknown> = {};
  if (options.narrowed) {
    for (const key of IDENTITY_KEYS) if (record[key] !== undefined) base[key] = record[key];
  } else {
    for (const [key, value] of Object.entries(record)) {
      if (key !== "data" && key !== "field_previews") base[key] = value;
    }
  }
  base.data = data;
  const ladder = [
    ...cut.map((c) =>
      truncatedEntry(record, {
        path: c.path,
        sizeChars: c.sizeChars,
        shown: c.shown,
        digest: c.digest,
        // A text preview carries its field's declared MIME type, as read_record_field reports it.
        ...(c.json
          ? { type: c.json, textLike: false, mimeType: "application/json" }
          : options.mimeTypes?.has(c.path)
            ? { mimeType: options.mimeTypes.get(c.path) }
            : {}),
      }),
    ),
    ...binary.map((b) => binaryEntry(record, b)),
  ];
  return { record: base, ladder };
}
