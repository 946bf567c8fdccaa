// The content lines of an iCalendar stream, unfolded as RFC 5545 §3.1 says: a line that starts with a
// space or tab continues the one before it, and the break may fall inside a multi-byte UTF-8 character,
// so lines are joined as bytes and decoded only once whole.
import { byteLines } from "./text-lines.js";

/** One logical line (CR and folding removed) and the physical line it starts on. */
export interface ContentLine {
  text: string;
  line: number;
}

export async function* contentLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<ContentLine> {
  let pending: Buffer[] = [];
  let start = 0;
  const decode = (): ContentLine => ({ text: Buffer.concat(pending).toString("utf8"), line: start });
  for await (const { bytes, line } of byteLines(chunks)) {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const body = bytes.subarray(0, end);
    if ((body[0] === 0x20 || body[0] === 0x09) && pending.length > 0) {
      pending.push(body.subarray(1));
      continue;
    }
    if (pending.length > 0) yield decode();
    pending = [body];
    start = line;
  }
  if (pending.length > 0) yield decode();
}
