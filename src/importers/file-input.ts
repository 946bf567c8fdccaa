// Opening an input file as a byte stream while counting what was consumed, for progress on a TTY.
import { createReadStream, statSync } from "node:fs";
import { PdppError } from "../core/errors.js";

export interface CountedInput {
  chunks: AsyncIterable<Buffer>;
  bytesRead(): number;
  totalBytes: number;
}

/** Read `path` in 1 MiB chunks; memory stays bounded whatever the file size. */
export function openCountedInput(path: string): CountedInput {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new PdppError("invalid_request", `cannot read ${path}: check that the file exists.`);
  }
  let read = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    const stream = createReadStream(path, { highWaterMark: 1 << 20 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      yield chunk;
    }
  }
  return { chunks: chunks(), bytesRead: () => read, totalBytes: size };
}

/** Wrap any chunk iterable with a byte counter. */
export function countChunks(source: AsyncIterable<Buffer>): {
  chunks: AsyncIterable<Buffer>;
  bytesRead(): number;
} {
  let read = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      read += chunk.length;
      yield chunk;
    }
  }
  return { chunks: chunks(), bytesRead: () => read };
}
