// The generic importers' shared half: choosing or inferring the manifest, typing text values, and adding
// the content-hash key, around a format reader (csv.ts, json.ts, jsonl.ts) that yields raw records.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { canonicalJson } from "../core/canonical-json.js";
import { PdppError } from "../core/errors.js";
import type { Manifest, StreamDef } from "../core/manifest.js";
import { validateManifest } from "../core/manifest-validate.js";
import { openCountedInput } from "./file-input.js";
import { CONTENT_HASH_FIELD, inferManifest } from "./infer.js";
import type { ImportItem, ImportSource } from "./types.js";

export type RawItem =
  | { data: Record<string, unknown>; position: string }
  | { error: string; position: string };
export type RawReader = (chunks: AsyncIterable<Buffer>) => AsyncIterable<RawItem>;
export type GenericFormat = "csv" | "json" | "jsonl";

export interface GenericOptions {
  /** A manifest (from --manifest); without it, `infer` must be true. */
  manifest?: Manifest;
  infer?: boolean;
  /** Stream to write: required when the manifest declares several; names the inferred stream. */
  stream?: string;
  /** Connector key of an inferred manifest (default `<format>.<file-name>`). */
  connectorKey?: string;
  /** Records read to infer types (default 1,000). */
  sampleSize?: number;
}

/** Read and validate a manifest JSON file. */
export function loadManifestFile(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new PdppError("invalid_request", `cannot read manifest ${path}: check the path.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PdppError("manifest_invalid", `manifest ${path} is not JSON: ${(error as Error).message}.`);
  }
  return validateManifest(parsed);
}

/** A lowercase safe name from a file name: `Bank Export 2024.csv` → `bank_export_2024`. */
export function nameFromFile(path: string): string {
  const stem = basename(path, extname(path))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const name = /^[a-z]/.test(stem) ? stem : `f_${stem}`;
  return name.slice(0, 48) || "records";
}

/** A generic source as its items can be read again elsewhere (a worker thread: generic-worker.ts). */
export interface GenericSource extends ImportSource {
  reopen: { path: string; format: GenericFormat; stream: string };
}

export async function openGenericSource(
  path: string,
  options: GenericOptions & { format: GenericFormat; reader: RawReader },
): Promise<GenericSource> {
  const fromText = options.format === "csv";
  let manifest: Manifest;
  if (options.manifest) manifest = options.manifest;
  else if (options.infer) {
    const samples: Record<string, unknown>[] = [];
    const limit = options.sampleSize ?? 1000;
    for await (const item of options.reader(openCountedInput(path).chunks)) {
      if ("data" in item) samples.push(item.data);
      if (samples.length >= limit) break;
    }
    const stream = options.stream ?? nameFromFile(path);
    manifest = validateManifest(
      inferManifest(samples, {
        connectorKey: options.connectorKey ?? `${options.format}.${stream.replace(/_/g, "-")}`,
        stream,
        displayName: basename(path),
        fromText,
      }),
    );
  } else {
    throw new PdppError("invalid_request", `pass --manifest <file> or --infer to import ${options.format}.`);
  }
  const stream = chooseStream(manifest, options.stream);
  const input = openCountedInput(path);
  return {
    manifest,
    items: typedItems(options.reader(input.chunks), stream, fromText),
    bytesRead: input.bytesRead,
    totalBytes: input.totalBytes,
    reopen: { path, format: options.format, stream: stream.name },
  };
}

function chooseStream(manifest: Manifest, wanted: string | undefined): StreamDef {
  if (wanted) {
    const found = manifest.streams.find((s) => s.name === wanted);
    if (found) return found;
  } else if (manifest.streams.length === 1) return manifest.streams[0]!;
  const names = manifest.streams.map((s) => s.name).join(", ");
  throw new PdppError(
    "invalid_request",
    wanted
      ? `the manifest has no stream ${wanted}; pass --stream with one of: ${names}.`
      : `the manifest declares several streams; pass --stream with one of: ${names}.`,
  );
}

async function* typedItems(
  raw: AsyncIterable<RawItem>,
  stream: StreamDef,
  fromText: boolean,
): AsyncGenerator<ImportItem> {
  const hashKey = stream.primary_key.length === 1 && stream.primary_key[0] === CONTENT_HASH_FIELD;
  for await (const item of raw) {
    if ("error" in item) {
      yield item;
      continue;
    }
    const typed = fromText ? typeTextValues(item.data, stream) : { data: item.data };
    if ("error" in typed) {
      yield { error: typed.error, position: item.position };
      continue;
    }
    const data = typed.data;
    if (hashKey && (data[CONTENT_HASH_FIELD] === undefined || data[CONTENT_HASH_FIELD] === null)) {
      data[CONTENT_HASH_FIELD] = createHash("sha256").update(canonicalJson(data)).digest("hex");
    }
    yield { stream: stream.name, data, position: item.position };
  }
}

/** CSV cells are text: empty → null, and declared integer/number/boolean columns are parsed. */
export function typeTextValues(
  row: Record<string, unknown>,
  stream: StreamDef,
): { data: Record<string, unknown> } | { error: string } {
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (value === "" || value === undefined) {
      data[name] = null;
      continue;
    }
    const type = stream.schema.properties[name]?.type;
    const text = String(value).trim();
    if (type === "integer" || type === "number") {
      const n = Number(text);
      if (text === "" || !Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) {
        return {
          error: `field ${name}: ${JSON.stringify(String(value).slice(0, 40))} is not ${type === "integer" ? "an integer" : "a number"}`,
        };
      }
      data[name] = n;
    } else if (type === "boolean") {
      const lower = text.toLowerCase();
      if (!["true", "false", "yes", "no", "1", "0"].includes(lower)) {
        return { error: `field ${name}: ${JSON.stringify(String(value).slice(0, 40))} is not a boolean` };
      }
      data[name] = ["true", "yes", "1"].includes(lower);
    } else data[name] = value;
  }
  return { data };
}
