// The Google Takeout importer: a Takeout zip or its extracted folder. Every `My Activity/<Product>/
// MyActivity.json` → `activity`, Chrome's `BrowserHistory.json` → `browser_history`, each member streamed
// element by element; every other part is named in the summary as skipped.
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { PdppError } from "../core/errors.js";
import { listFolder } from "./detect-probe.js";
import { countChunks, openCountedInput } from "./file-input.js";
import type { ImportFormat } from "./import-format.js";
import { streamJsonArray } from "./json-array-stream.js";
import { TAKEOUT_MANIFEST } from "./takeout-manifest.js";
import type { ImportItem, ImportSource } from "./types.js";
import { isZipFile, listZip, openZipMember } from "./zip-file.js";

const ACTIVITY = /(?:^|\/)My Activity\/([^/]+)\/MyActivity\.json$/;
const BROWSER = /(?:^|\/)Chrome\/(?:BrowserHistory|History)\.json$/;

interface Member {
  name: string;
  size: number;
}

interface Part {
  member: Member;
  stream: "activity" | "browser_history";
  product: string;
}

export async function openTakeoutSource(path: string): Promise<ImportSource> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  let members: Member[];
  let open: (name: string) => Promise<AsyncIterable<Buffer>>;
  if (isDirectory) {
    const names = await listFolder(path);
    members = await Promise.all(
      names.map(async (name) => ({ name, size: (await stat(join(path, name))).size })),
    );
    open = async (name) => openCountedInput(join(path, name)).chunks;
  } else if (await isZipFile(path)) {
    members = (await listZip(path)).map((m) => ({ name: m.name, size: m.uncompressedSize }));
    open = async (name) => (await openZipMember(path, name)) as AsyncIterable<Buffer>;
  } else {
    throw new PdppError("invalid_request", `${path} is neither a Takeout zip nor a Takeout folder.`);
  }
  const { parts, skipped } = classify(members);
  if (parts.length === 0) {
    throw new PdppError(
      "invalid_request",
      `no My Activity JSON or Chrome BrowserHistory.json in ${path} (found: ${skipped.join(", ") || "nothing"}); in Takeout choose My Activity in JSON format, or Chrome.`,
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
    notes: () =>
      skipped.length > 0
        ? [`skipped parts of the Takeout (no importer for them): ${skipped.join(", ")}`]
        : [],
  };
}

/** The parts this importer reads, and a name for every other part (a product folder, or HTML activity). */
export function classify(members: Member[]): { parts: Part[]; skipped: string[] } {
  const parts: Part[] = [];
  const skipped = new Map<string, number>();
  for (const member of members) {
    const activity = ACTIVITY.exec(member.name);
    if (activity) {
      parts.push({ member, stream: "activity", product: activity[1]! });
      continue;
    }
    if (BROWSER.test(member.name)) {
      parts.push({ member, stream: "browser_history", product: "Chrome" });
      continue;
    }
    const segments = member.name.replace(/^Takeout\//, "").split("/");
    const label =
      segments[0] === "My Activity" && segments.length > 2
        ? `My Activity/${segments[1]} (${segments.at(-1)!.endsWith(".html") ? "HTML: export it as JSON" : "not MyActivity.json"})`
        : segments[0]!;
    skipped.set(label, (skipped.get(label) ?? 0) + 1);
  }
  return {
    parts,
    // Sorted, so a zip (archive order) and its extracted folder (listed sorted) say the same.
    skipped: [...skipped]
      .sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .map(([label, n]) => `${label} (${n} ${n === 1 ? "file" : "files"})`),
  };
}

async function* partItems(chunks: AsyncIterable<Buffer>, part: Part): AsyncGenerator<ImportItem> {
  const shortName = part.member.name.replace(/^Takeout\//, "");
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
        ? activityRecord(value as Record<string, unknown>, part.product)
        : visitRecord(value as Record<string, unknown>);
    if ("error" in record) yield { error: record.error, position };
    else yield { stream: part.stream, data: record.data, position };
  }
}

function digest(parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const arr = (v: unknown): unknown[] | null => (Array.isArray(v) && v.length > 0 ? v : null);

export function activityRecord(
  item: Record<string, unknown>,
  product: string,
): { data: Record<string, unknown> } | { error: string } {
  const time = str(item.time);
  if (!time || Number.isNaN(Date.parse(time))) return { error: "activity item has no valid time" };
  const header = str(item.header);
  const title = str(item.title);
  const titleUrl = str(item.titleUrl);
  const data = {
    // Not a digest of the whole item: a later export that adds a field must still match this record.
    activity_id: digest([product, header, title, titleUrl, time]),
    product,
    header,
    title,
    title_url: titleUrl,
    time: new Date(time).toISOString(),
    products: arr(item.products),
    subtitles: arr(item.subtitles),
    details: arr(item.details),
    location_infos: arr(item.locationInfos),
    activity_controls: arr(item.activityControls),
    description: str(item.description),
  };
  return { data };
}

export function visitRecord(
  item: Record<string, unknown>,
): { data: Record<string, unknown> } | { error: string } {
  const url = str(item.url);
  const usec = typeof item.time_usec === "number" ? item.time_usec : Number(item.time_usec);
  if (!url) return { error: "history item has no url" };
  if (!Number.isFinite(usec) || usec <= 0) return { error: "history item has no valid time_usec" };
  let domain: string | null = null;
  try {
    domain = new URL(url).hostname || null;
  } catch {
    domain = null;
  }
  const clientId = str(item.client_id);
  const data = {
    visit_id: digest([url, usec, clientId]),
    title: str(item.title),
    url,
    domain,
    visited_at: new Date(Math.floor(usec / 1000)).toISOString(),
    page_transition: str(item.page_transition),
    client_id: clientId,
    favicon_url: str(item.favicon_url),
  };
  return { data };
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
    "import a Google Takeout zip or folder: My Activity (JSON) into `activity`, Chrome history into `browser_history`",
  argument: { syntax: "<file>", description: "the Takeout zip, or the folder it was extracted to" },
  defaultLabel: () => "Google Takeout",
  open: (path) => openTakeoutSource(path),
  detect: (probe) => {
    if (probe.kind === "file") return 0;
    if (probe.entries.some((e) => ACTIVITY.test(e) || BROWSER.test(e))) return 0.95;
    return probe.entries.some((e) => e.startsWith("Takeout/")) ? 0.6 : 0;
  },
};
