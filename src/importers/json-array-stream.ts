// Streaming reader of a top-level JSON array: yields each element parsed on its own, so memory is bounded
// by the largest element (one conversation, one record), never by the file.

export type JsonElement =
  | { value: unknown; index: number; offset: number }
  /** `element: false` marks an error about the file (not an array, data after it), not one element. */
  | { error: string; index: number; offset: number; element?: false };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Scans bytes (UTF-8 never puts an ASCII byte inside a multi-byte character, so this is safe) tracking
 * string/escape state and nesting depth; an element ends at a `,` or `]` at depth 1.
 */
export async function* streamJsonArray(chunks: AsyncIterable<Buffer>): AsyncGenerator<JsonElement> {
  let depth = 0; // 0 = before the array, 1 = inside it between elements' tokens
  let inString = false;
  let escaped = false;
  let ended = false;
  let parts: Buffer[] = [];
  let elementStart = -1; // file offset where the current element starts, -1 when between elements
  let index = 0;
  let fileOffset = 0;

  const emit = (): JsonElement => {
    const text = Buffer.concat(parts).toString("utf8").trim();
    parts = [];
    const at = { index, offset: elementStart };
    index++;
    elementStart = -1;
    try {
      return { value: JSON.parse(text), ...at };
    } catch (error) {
      return { error: `invalid JSON: ${(error as Error).message}`, ...at };
    }
  };

  for await (const chunk of chunks) {
    let sliceFrom = 0; // start of this chunk's bytes that belong to the current element
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (ended) {
        if (isSpace(byte)) continue;
        yield {
          error: "unexpected data after the top-level array",
          index,
          offset: fileOffset + i,
          element: false,
        };
        return;
      }
      if (depth === 0) {
        if (isSpace(byte) || byte === 0xef || byte === 0xbb || byte === 0xbf) continue; // whitespace or BOM
        if (byte !== OPEN_BRACKET) {
          yield {
            error: "expected a top-level JSON array ([…])",
            index,
            offset: fileOffset + i,
            element: false,
          };
          return;
        }
        depth = 1;
        continue;
      }
      if (depth === 1 && (byte === COMMA || byte === CLOSE_BRACKET)) {
        if (elementStart >= 0) {
          parts.push(chunk.subarray(sliceFrom, i));
          yield emit();
        } else if (byte === COMMA) {
          yield { error: "empty array element", index: index++, offset: fileOffset + i };
        }
        if (byte === CLOSE_BRACKET) {
          ended = true;
          depth = 0;
        }
        continue;
      }
      if (depth === 1 && elementStart < 0) {
        if (isSpace(byte)) continue;
        elementStart = fileOffset + i;
        sliceFrom = i;
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
    }
    if (elementStart >= 0) parts.push(chunk.subarray(sliceFrom));
    fileOffset += chunk.length;
  }
  if (!ended) {
    const offset = elementStart >= 0 ? elementStart : fileOffset;
    yield { error: "the JSON array is not closed (file truncated?)", index, offset };
  }
}
