// Streaming split of an mbox file into raw messages: memory is bounded by the largest message, not the file.
// Separators are `From ` at the start of a line; `>From ` lines are unquoted one level (mboxrd).

export interface RawMessage {
  /** The message bytes without the `From ` separator line, unquoted, without the trailing blank line. */
  raw: Buffer;
  /** 1-based message number in the file. */
  index: number;
  /** Byte offset of its `From ` line in the file. */
  offset: number;
}

const SEPARATOR = Buffer.from("\nFrom ");
const FROM = Buffer.from("From ");
const KEEP_TAIL = SEPARATOR.length - 1;

/** Yields every message of an mbox byte stream; bytes before the first `From ` line come back as index 0. */
export async function* splitMbox(chunks: AsyncIterable<Buffer>): AsyncGenerator<RawMessage> {
  let parts: Buffer[] = [];
  let pending: Buffer = Buffer.alloc(0);
  let messageOffset = 0; // file offset where the current segment starts
  let consumed = 0; // file offset of pending[0]
  let first = true;
  let messageNumber = 0;

  const finish = (tail: Buffer): RawMessage | null => {
    const segment = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    const isPreamble = first && !segment.subarray(0, FROM.length).equals(FROM);
    first = false;
    if (isPreamble) {
      // Text before the first separator: only whitespace is acceptable; anything else is reported.
      return segment.toString("latin1").trim() === ""
        ? null
        : { raw: segment, index: 0, offset: messageOffset };
    }
    messageNumber++;
    return { raw: messageBody(segment), index: messageNumber, offset: messageOffset };
  };

  for await (const chunk of chunks) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = pending.indexOf(SEPARATOR);
    while (at >= 0) {
      const message = finish(pending.subarray(0, at + 1));
      if (message) yield message;
      consumed += at + 1;
      messageOffset = consumed;
      pending = pending.subarray(at + 1);
      at = pending.indexOf(SEPARATOR, 1);
    }
    // Park all but a separator-sized tail, so a separator split across chunks is still found.
    if (pending.length > KEEP_TAIL) {
      const cut = pending.length - KEEP_TAIL;
      parts.push(pending.subarray(0, cut));
      consumed += cut;
      pending = pending.subarray(cut);
    }
  }
  const last = finish(pending);
  if (last) yield last;
}

/** The segment minus its `From ` line and the blank line before the next separator, unquoted. */
function messageBody(segment: Buffer): Buffer {
  const lineEnd = segment.indexOf(0x0a);
  let body = lineEnd < 0 ? Buffer.alloc(0) : segment.subarray(lineEnd + 1);
  if (body.length > 0 && body[body.length - 1] === 0x0a) body = body.subarray(0, body.length - 1);
  if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, body.length - 1);
  return unquoteFromLines(body);
}

/** mboxrd: a line `>From `, `>>From `, … loses one `>`. Works on bytes, so 8-bit bodies survive. */
export function unquoteFromLines(body: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let copyFrom = 0;
  let at = body[0] === 0x3e ? 0 : body.indexOf("\n>");
  while (at >= 0) {
    const lineStart = at === 0 && body[0] === 0x3e ? 0 : at + 1;
    let i = lineStart;
    while (body[i] === 0x3e) i++;
    if (body.subarray(i, i + FROM.length).equals(FROM)) {
      pieces.push(body.subarray(copyFrom, lineStart));
      copyFrom = lineStart + 1; // skip exactly one '>'
    }
    at = body.indexOf("\n>", lineStart + 1);
  }
  if (pieces.length === 0) return body;
  pieces.push(body.subarray(copyFrom));
  return Buffer.concat(pieces);
}
