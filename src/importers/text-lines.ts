// Lines of a UTF-8 byte stream with their 1-based numbers; split on bytes, so lines may be of any size.

/** The bytes of each line (without its LF), with its 1-based number. */
export async function* byteLines(
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<{ bytes: Buffer; line: number }> {
  let parts: Buffer[] = [];
  let line = 1;
  for await (const chunk of chunks) {
    let start = 0;
    let at = chunk.indexOf(0x0a);
    while (at >= 0) {
      const piece = chunk.subarray(start, at);
      const bytes = parts.length === 0 ? piece : Buffer.concat([...parts, piece]);
      parts = [];
      yield { bytes, line: line++ };
      start = at + 1;
      at = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (parts.length > 0) yield { bytes: Buffer.concat(parts), line };
}

export async function* textLines(
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<{ text: string; line: number }> {
  for await (const { bytes, line } of byteLines(chunks)) yield { text: bytes.toString("utf8"), line };
}
