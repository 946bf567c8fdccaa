// read_record_field rendering: the structured window (the seed contract) and the text block — one
// line of compact JSON, a newline, then the window text verbatim, so text-only clients reassemble.
import type { FieldWindowAnswer } from "../wire.js";
import { windowUri } from "./handles.js";

export interface WindowResult {
  record: FieldWindowAnswer["record"];
  field: FieldWindowAnswer["field"];
  window: FieldWindowAnswer["window"];
  resource: { uri: string; next_uri: string | null; previous_uri: string | null };
}

export function buildWindowResult(answer: FieldWindowAnswer, current: { cursor?: string }): WindowResult {
  const r = answer.record;
  const at = (w: { cur: string } | { o: number; l?: number }) =>
    windowUri({ c: r.connection_id, s: r.stream, r: r.record_id, f: answer.field.path, w });
  const w = answer.window;
  const field: FieldWindowAnswer["field"] = {
    path: answer.field.path,
    text_like: answer.field.text_like,
    size_chars: answer.field.size_chars,
    digest: answer.field.digest,
  };
  if (answer.field.mime_type) field.mime_type = answer.field.mime_type;
  return {
    record: { id: r.id, connection_id: r.connection_id, stream: r.stream, record_id: r.record_id },
    field,
    window: {
      text: w.text,
      start_chars: w.start_chars,
      end_chars: w.end_chars,
      limit_chars: w.limit_chars,
      complete: w.complete,
      next_cursor: w.next_cursor,
      previous_cursor: w.previous_cursor,
      match: w.match,
    },
    resource: {
      uri: current.cursor ? at({ cur: current.cursor }) : at({ o: w.start_chars, l: w.limit_chars }),
      next_uri: w.next_cursor ? at({ cur: w.next_cursor }) : null,
      previous_uri: w.previous_cursor ? at({ cur: w.previous_cursor }) : null,
    },
  };
}

/** The header line + window text (nothing after the text). */
export function renderWindowText(result: WindowResult): string {
  const header = {
    id: result.record.id,
    field_path: result.field.path,
    start: result.window.start_chars,
    end: result.window.end_chars,
    total: result.field.size_chars,
    complete: result.window.complete,
    next_cursor: result.window.next_cursor,
    previous_cursor: result.window.previous_cursor,
    // Visible in text too: with a q that does not occur, the window is the field's start, not a match.
    match: result.window.match
      ? { start: result.window.match.start_chars, end: result.window.match.end_chars }
      : null,
  };
  return `${JSON.stringify(header)}\n${result.window.text}`;
}
