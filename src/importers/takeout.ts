// The Google Takeout importer: a Takeout zip or its extracted folder. Every My Activity file (any product,
// in any language, wherever it lies: YouTube's watch and search history too) → `activity`, Chrome's
// history → `browser_history`, each streamed element by element; the summary names what was read and
// what was skipped. Which files are which: takeout-parts.ts.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { PdppError } from "../core/errors.js";
import { listFolder, readFileHead } from "./detect-probe.js";
import { countChunks, openCountedInput } from "./file-input.js";
import type { ImportFormat } from "./import-format.js";
import { streamJsonArray } from "./json-array-stream.js";
import { TAKEOUT_MANIFEST } from "./takeout-manifest.js";
import {
  classify,
  isKnownTakeoutPart,
  type Member,
  type Part,
  SNIFF_BYTES,
  sniff,
  worthSniffing,
} from "./takeout-parts.js";
import { activityRecord, visitRecord } from "./takeout-records.js";
import type { ImportItem, ImportSource } from "./types.js";
import { isZipFile, listZip, openZipMember, readZipHeads } from "./zip-file.js";

export async function openTakeoutSource(path: string): Promise<ImportSource> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  let members: Member[];
  let open: (name: string) => Promise<AsyncIterable<Buffer>>;
  let heads: (wanted: Set<string>) => Promise<Map<string, Buffer>>;
  if (isDirectory) {
    const names = await listFolder(path);
    members = await Promise.all(
      names.map(async (name) => ({ name, size: (await stat(join(path, name))).size })),
    );
    open = async (name) => openCountedInput(join(path, name)).chunks;
    heads = async (wanted) =>
      new Map(
        await Promise.all(
          [...wanted].map(async (n) => [n, await readFileHead(join(path, n), SNIFF_BYTES)] as const),
        ),
      );
  } else if (await isZipFile(path)) {
    members = (await listZip(path)).map((m) => ({ name: m.name, size: m.uncompressedSize }));
    open = async (name) => (await openZipMember(path, name)) as AsyncIterable<Buffer>;
    heads = (wanted) => readZipHeads(path, (name) => wanted.has(name), SNIFF_BYTES);
  } else {
    throw new PdppError("invalid_request", `${path} is neither a Takeout zip nor a Takeout folder.`);
  }
  const { parts, skipped, read } = classify(members, await sniffAll(members, heads));
  if (parts.length === 0) {
    throw new PdppError(
      "invalid_request",
      `no My Activity JSON or Chrome history in ${path} (found: ${skipped.join(", ") || "nothing"}); in Takeout choose My Activity (or YouTube history) in JSON format, or Chrome.`,
    );
  }
  let done = 0;
  let current: { bytesRead(): number } = { bytesRead: () => 0 };
  async function* items(): AsyncGenerator<ImportItem> {
    for (const part of parts) {
      const counted = countChunks(await open(part.member.name));
      current = counted;
      yield* partItems(counted.chunks, part);
      done += part.member.size;
      current = { bytesRead: () => 0 };
    }
  }
  return {
    manifest: TAKEOUT_MANIFEST,
    items: items(),
    bytesRead: () => done + current.bytesRead(),
    totalBytes: parts.reduce((sum, p) => sum + p.member.size, 0),
    notes: () => [
      `read: ${read.join(", ")}`,
      ...(skipped.length > 0
        ? [`skipped parts of the Takeout (no importer for them): ${skipped.join(", ")}`]
        : []),
    ],
  };
}

/** What each JSON file that is worth a look holds, from its first bytes. */
async function sniffAll(
  members: Member[],
  heads: (wanted: Set<string>) => Promise<Map<string, Buffer>>,
): Promise<Map<string, Part["stream"] | null>> {
  const wanted = new Set(members.filter(worthSniffing).map((m) => m.name));
  const found = wanted.size > 0 ? await heads(wanted) : new Map<string, Buffer>();
  return new Map([...found].map(([name, bytes]) => [name, sniff(bytes.toString("utf8"))]));
}

async function* partItems(chunks: AsyncIterable<Buffer>, part: Part): AsyncGenerator<ImportItem> {
  const shortName = part.member.name.replace(/^Takeout\//, "");
  const folder = part.member.name.split("/").at(-2) ?? "Takeout";
  const source = part.stream === "browser_history" ? arrayUnderKey(chunks, "Browser History") : chunks;
  for await (const element of streamJsonArray(source)) {
    if ("error" in element) {
      // BrowserHistory.json's array sits inside an object: what follows the array is its closing brace.
      if (part.stream === "browser_history" && element.error.startsWith("unexpected data after")) continue;
      const where = element.element === false ? `byte ${element.offset}` : `item ${element.index + 1}`;
      yield { error: element.error, position: `${shortName} ${where}` };
      continue;
    }
    const position = `${shortName} item ${element.index + 1}`;
    const value = element.value;
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      yield { error: "an item must be a JSON object", position };
      continue;
    }
    const record =
      part.stream === "activity"
        ? activityRecord(value as Record<string, unknown>, { product: part.product, folder })
        : visitRecord(value as Record<string, unknown>);
    if ("error" in record) yield { error: record.error, position };
    else yield { stream: part.stream, data: record.data, position };
  }
}

/**
 * The bytes of an object's array member, from its `[` on: `{"Browser History": [ … ]}` → `[ … ]}`. Only the
 * text before the array is buffered (the key comes first in Takeout's file).
 */
async function* arrayUnderKey(chunks: AsyncIterable<Buffer>, key: string): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let found = false;
  const pattern = new RegExp(`"${key}"\\s*:\\s*\\[`);
  for await (const chunk of chunks) {
    if (found) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString("latin1"); // byte offsets equal string offsets in latin1
    const match = pattern.exec(text);
    if (match) {
      found = true;
      yield head.subarray(match.index + match[0].length - 1);
    } else if (head.length > 1 << 20) break;
  }
  if (!found) yield Buffer.from(`"no ${key} array"`);
}

export const TAKEOUT_FORMAT: ImportFormat = {
  name: "takeout",
  description:
    "import a Google Takeout zip or folder (any language): My Activity and YouTube history (JSON) into `activity`, Chrome history into `browser_history`",
  argument: { syntax: "<file>", description: "the Takeout zip, or the folder it was extracted to" },
  defaultLabel: () => "Google Takeout",
  open: (path) => openTakeoutSource(path),
  detect: (probe) => {
    if (probe.kind === "file") return 0;
    if (probe.entries.some(isKnownTakeoutPart)) return 0.95;
    return probe.entries.some((e) => e.startsWith("Takeout/")) ? 0.6 : 0;
  },
};
