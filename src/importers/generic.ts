// The generic importers' shared half: choosing or inferring the manifest, typing text values, and adding
// the content-hash key, around a format reader (csv.ts, json.ts, jsonl.ts) that yields raw records.
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { PdppError } from "../core/errors.js";
import type { Manifest, StreamDef } from "../core/manifest.js";
import { validateManifest } from "../core/manifest-validate.js";
import { openCountedInput } from "./file-input.js";
import { type GenericFormat, type RawReader, typedItems } from "./generic-items.js";
import { inferManifest } from "./infer.js";
import type { ImportSource } from "./types.js";

export type { GenericFormat, RawItem, RawReader } from "./generic-items.js";
export { typeTextValues } from "./generic-items.js";

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
