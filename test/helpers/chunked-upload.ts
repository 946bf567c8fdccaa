// A pull-based chunked request body for body-limit tests: counts what the server read and
// whether it cancelled the upload (no content-length is declared).
/** A pull-based chunked upload that counts what the server read and whether it cancelled. */
export function chunkedUpload(options: { chunks: number; chunkBytes: number }) {
  const chunk = new Uint8Array(options.chunkBytes).fill(0x20);
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= options.chunks) return controller.close();
        sent += 1;
        controller.enqueue(chunk.slice());
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => sent * options.chunkBytes, cancelled: () => cancelled };
}
