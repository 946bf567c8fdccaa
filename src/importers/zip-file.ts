// Reading zip archives without extracting them (yauzl): is a file a zip, its member list, one member
// streamed. Shared by auto-detection and the importers that accept an export zip.
import { type FileHandle, open } from "node:fs/promises";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { PdppError } from "../core/errors.js";

export interface ZipMember {
  name: string;
  uncompressedSize: number;
}

/** True when the file starts with a zip local-file signature. */
export async function isZipFile(path: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

async function openZip(path: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: true });
  } catch (error) {
    throw new PdppError("invalid_request", `${path} is not a readable zip: ${(error as Error).message}.`);
  }
}

/** Walk the central directory, calling `visit` per entry until it returns true (found) or entries end. */
async function walkEntries(zip: yauzl.ZipFile, visit: (entry: yauzl.Entry) => boolean): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      if (visit(entry)) resolve();
      else zip.readEntry();
    });
    zip.on("end", () => resolve());
    zip.on("error", reject);
    zip.readEntry();
  });
}

/** Every file member (directories left out), in archive order. */
export async function listZip(path: string): Promise<ZipMember[]> {
  const zip = await openZip(path);
  const members: ZipMember[] = [];
  try {
    await walkEntries(zip, (entry) => {
      if (!entry.fileName.endsWith("/")) {
        members.push({ name: entry.fileName, uncompressedSize: entry.uncompressedSize });
      }
      return false;
    });
  } finally {
    zip.close();
  }
  return members;
}

/** Stream one member by its full name; the archive closes when the stream ends or is destroyed. */
export async function openZipMember(path: string, name: string): Promise<Readable> {
  const zip = await openZip(path);
  let found: yauzl.Entry | null = null;
  await walkEntries(zip, (entry) => {
    if (entry.fileName === name) found = entry;
    return found !== null;
  });
  if (!found) {
    zip.close();
    throw new PdppError("invalid_request", `the zip ${path} has no member ${name}.`);
  }
  const stream = await zip.openReadStreamPromise(found);
  stream.on("close", () => zip.close());
  return stream;
}

/** The first `limit` bytes of one member (stops reading there). */
export async function readZipMemberHead(path: string, name: string, limit: number): Promise<Buffer> {
  const stream = await openZipMember(path, name);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(parts).subarray(0, limit);
}

/**
 * The first `limit` bytes of every member `wanted` accepts, in one walk of the archive (opening members
 * one by one would walk the central directory again for each: quadratic on a Takeout of many files).
 */
export async function readZipHeads(
  path: string,
  wanted: (name: string) => boolean,
  limit: number,
): Promise<Map<string, Buffer>> {
  const zip = await openZip(path);
  const heads = new Map<string, Buffer>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/") || !wanted(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (error, stream) => {
          if (error || !stream) {
            reject(error ?? new Error(`cannot read ${entry.fileName}`));
            return;
          }
          const parts: Buffer[] = [];
          let size = 0;
          const done = () => {
            heads.set(entry.fileName, Buffer.concat(parts).subarray(0, limit));
            zip.readEntry();
          };
          stream.on("data", (chunk: Buffer) => {
            parts.push(chunk);
            size += chunk.length;
            if (size >= limit) {
              stream.removeAllListeners("end");
              stream.destroy();
              done();
            }
          });
          stream.on("end", done);
          stream.on("error", reject);
        });
      });
      zip.on("end", () => resolve());
      zip.on("error", reject);
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return heads;
}
