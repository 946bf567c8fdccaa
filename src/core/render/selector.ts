// Field-window selector rules of read_record_field (20-rs-api.md): violations are typed errors
// that name the rule, raised before any RS call.
import { PdppError } from "../errors.js";
import { CONTEXT_MAX_CHARS, WINDOW_MAX_CHARS } from "./budget.js";

export interface WindowSelectorArgs {
  cursor?: string;
  offset_chars?: number;
  limit_chars?: number;
  q?: string;
  before_chars?: number;
  after_chars?: number;
}

export type CheckedSelector =
  | { kind: "cursor"; cursor: string; limit_chars?: number }
  | { kind: "range"; offset_chars: number; limit_chars?: number }
  | { kind: "match"; q: string; before_chars?: number; after_chars?: number; limit_chars?: number };

function rule(message: string, param: string): PdppError {
  return new PdppError("invalid_field_window_selector", message, { param });
}

function checkInt(value: number | undefined, name: string, max: number, min = 0): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw rule(`${name} must be an integer from ${min} to ${max}.`, name);
  }
}

/**
 * Apply the selector rules of 002; no selector means offset 0. `limit_chars` may accompany a
 * cursor (it resizes the window the cursor starts) or q (it sizes the window around the match
 * when before_chars/after_chars are not given).
 */
export function checkSelector(args: WindowSelectorArgs): CheckedSelector {
  checkInt(args.offset_chars, "offset_chars", Number.MAX_SAFE_INTEGER);
  checkInt(args.limit_chars, "limit_chars", WINDOW_MAX_CHARS, 1);
  checkInt(args.before_chars, "before_chars", CONTEXT_MAX_CHARS);
  checkInt(args.after_chars, "after_chars", CONTEXT_MAX_CHARS);
  if (args.cursor !== undefined) {
    for (const other of ["offset_chars", "q", "before_chars", "after_chars"] as const) {
      if (args[other] !== undefined) {
        throw rule(`rule "cursor excludes every other selector": drop ${other} or cursor.`, other);
      }
    }
    if (args.cursor.length === 0 || !/^[A-Za-z0-9_.~-]+$/.test(args.cursor)) {
      throw new PdppError(
        "invalid_cursor",
        "cursor must be a next_cursor/previous_cursor value passed back as-is.",
        {
          param: "cursor",
        },
      );
    }
    return { kind: "cursor", cursor: args.cursor, limit_chars: args.limit_chars };
  }
  if (args.q !== undefined) {
    if (args.offset_chars !== undefined) {
      throw rule('rule "q excludes offset_chars": drop offset_chars or q.', "offset_chars");
    }
    if (args.q.length === 0 || args.q.length > 1000) throw rule("q must be 1 to 1,000 characters.", "q");
    return {
      kind: "match",
      q: args.q,
      before_chars: args.before_chars,
      after_chars: args.after_chars,
      limit_chars: args.limit_chars,
    };
  }
  for (const other of ["before_chars", "after_chars"] as const) {
    if (args[other] !== undefined) throw rule(`rule "${other} needs q": pass q or drop ${other}.`, other);
  }
  return { kind: "range", offset_chars: args.offset_chars ?? 0, limit_chars: args.limit_chars };
}

/** The RS query parameters of a checked selector. */
export function selectorParams(selector: CheckedSelector): [string, string][] {
  const out: [string, string][] = [];
  const add = (k: string, v: string | number | undefined) => {
    if (v !== undefined) out.push([k, String(v)]);
  };
  if (selector.kind === "cursor") {
    add("cursor", selector.cursor);
    add("limit_chars", selector.limit_chars);
  } else if (selector.kind === "range") {
    add("offset_chars", selector.offset_chars);
    add("limit_chars", selector.limit_chars);
  } else {
    add("q", selector.q);
    add("before_chars", selector.before_chars);
    add("after_chars", selector.after_chars);
    add("limit_chars", selector.limit_chars);
  }
  return out;
}
