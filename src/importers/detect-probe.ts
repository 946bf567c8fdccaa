// What auto-detection may look at, gathered once per input: the first bytes of a file, or the member list
// of a zip or folder and, on demand, the first bytes of one member. Never reads a whole file.
import { open, opendir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { PdppError } from "../core/errors.js";
import { isZipFile, listZip, readZipMemberHead } from "./zip-file.js";

/** Bytes read from the start of a file or member. */
export const PROBE_BYTES = 64 * 1024;
/** Members listed from a folder (a Takeout folder can hold many thousands of files). */
const MAX_FOLDER_ENTRIES = 20_000;

export interface DetectProbe {
  path: string;
  kind: "file" | "zip" | "directory";
  /** A file's first PROBE_BYTES decoded as UTF-8 (BOM removed); "" for a zip or folder. */
  headText: string;
  /** Member paths of a zip (as stored) or a folder (relative, `/`-separated); [] for a plain file. */
  entries: readonly string[];
  /**
   * A plain file: its headText. A zip or folder: the first PROBE_BYTES of the first member whose base name
   * is `member` (or whose path ends with `/member`), decoded as UTF-8; null when there is none.
   */
  head(member?: string): Promise<string | null>;
}

export async function openProbe(path: string): Promise<DetectProbe> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  if (isDirectory) {
    const entries = await listFolder(path);
    return membersProbe(path, "directory", entries, (name) => readFileHead(join(path, name)));
  }
  if (await isZipFile(path)) {
    const entries = (await listZip(path)).map((m) => m.name);
    return membersProbe(path, "zip", entries, (name) => readZipMemberHead(path, name, PROBE_BYTES));
  }
  const headText = decodeHead(await readFileHead(path));
  return { path, kind: "file", headText, entries: [], head: async () => headText };
}

function membersProbe(
  path: string,
  kind: "zip" | "directory",
  entries: string[],
  read: (name: string) => Promise<Buffer>,
): DetectProbe {
  const cache = new Map<string, string | null>();
  return {
    path,
    kind,
    headText: "",
    entries,
    head: async (member) => {
      if (member === undefined) return null;
      if (cache.has(member)) return cache.get(member)!;
      const name = entries.find((e) => e === member || e.endsWith(`/${member}`));
      const text = name === undefined ? null : decodeHead(await read(name));
      cache.set(member, text);
      return text;
    },
  };
}

/** UTF-8 text of a head; a multi-byte character cut at the end becomes U+FFFD, which no detector needs. */
function decodeHead(bytes: Buffer): string {
  return bytes.toString("utf8").replace(/^\ufeff/, "");
}

/** The first `limit` bytes of a file (default PROBE_BYTES). */
export async function readFileHead(path: string, limit = PROBE_BYTES): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export async function listFolder(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of await opendir(dir)) {
      if (out.length >= MAX_FOLDER_ENTRIES) return;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out.push(relative(root, full).split("\\").join("/"));
    }
  };
  await walk(root);
  return out.sort();
}
