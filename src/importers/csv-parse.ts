// Streaming RFC 4180 CSV reader: quoted fields (with commas, quotes and newlines), CRLF/LF, a UTF-8 BOM.
import { StringDecoder } from "node:string_decoder";

export interface CsvRow {
  fields: string[];
  /** 1-based line where the row starts. */
  line: number;
}

/** Yields rows as they complete; memory is bounded by the longest row. */
export async function* csvRows(chunks: AsyncIterable<Buffer>, delimiter = ","): AsyncGenerator<CsvRow> {
  const decoder = new StringDecoder("utf8");
  let field = "";
  let fields: string[] = [];
  let inQuotes = false;
  let quoteSeen = false; // the previous char closed a quote (or was the first of a doubled quote)
  let line = 1;
  let rowLine = 1;
  let rowHasContent = false;
  let first = true;
  let afterCr = false; // the previous char was a CR that ended a row (its LF may come in the next chunk)

  function* handle(text: string): Generator<CsvRow> {
    let segmentStart = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (afterCr) {
        afterCr = false;
        if (ch === "\n") {
          segmentStart = i + 1;
          continue;
        }
      }
      if (inQuotes) {
        if (ch === '"') {
          field += text.slice(segmentStart, i);
          segmentStart = i + 1;
          inQuotes = false;
          quoteSeen = true;
        } else if (ch === "\n") line++;
        continue;
      }
      if (ch === '"') {
        // A doubled quote inside a quoted field reopens it and keeps one quote.
        field += text.slice(segmentStart, i);
        if (quoteSeen) field += '"';
        segmentStart = i + 1;
        inQuotes = true;
        quoteSeen = false;
        rowHasContent = true;
        continue;
      }
      quoteSeen = false;
      if (ch === delimiter) {
        fields.push(field + text.slice(segmentStart, i));
        field = "";
        segmentStart = i + 1;
        rowHasContent = true;
      } else if (ch === "\n" || ch === "\r") {
        const value = field + text.slice(segmentStart, i);
        segmentStart = i + 1;
        afterCr = ch === "\r";
        if (rowHasContent || value !== "") {
          fields.push(value);
          yield { fields, line: rowLine };
        }
        fields = [];
        field = "";
        rowHasContent = false;
        line++;
        rowLine = line;
      }
    }
    field += text.slice(segmentStart);
    if (field !== "") rowHasContent = true;
  }

  for await (const chunk of chunks) {
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    yield* handle(text);
  }
  yield* handle(decoder.end());
  if (rowHasContent || field !== "") {
    fields.push(field);
    yield { fields, line: rowLine };
  }
}
