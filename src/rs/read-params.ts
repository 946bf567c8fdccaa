// Read parameters shared by several routes: `fields` projection, `sort`, `preview_chars` and the
// `q` length limit, checked against every scope a read fans in over (declared somewhere, granted
// where declared).
import { fieldNotGranted, isFieldGranted, sortableFields } from "../core/capabilities.js";
import { invalidRequest, PdppError } from "../core/errors.js";
import type { StreamScope } from "../core/grant.js";
import {
  ambiguousStream,
  requireFieldInEveryConnector,
  requireInEveryConnector,
} from "../core/grant-scope.js";
import { isFieldPath } from "../core/ids.js";
import { fieldSchemaAt, isTimeLike } from "../core/manifest.js";
import { MAX_QUERY_CHARS } from "../core/search-query.js";
import type { SortSpec } from "../store/store.js";
import type { Params } from "./params.js";

/**
 * pdpp extension to 20-rs-api.md: `preview_chars` (64–16,384) on the records list and the single
 * record cuts text fields longer than it to their first preview_chars code points and adds
 * `field_previews: {path: {size_chars, digest, complete:false}}` to the record, so a page of fat
 * records stays bounded (the MCP adapter relies on it). The full text stays readable through the
 * field-window endpoint. Binary fields never leave the store on such a read: each is "" with
 * `{size_chars, complete:false}` in field_previews (no digest: hashing would read the bytes).
 */
export const PREVIEW_CHARS_RANGE = { min: 64, max: 16_384 } as const;

export function previewCharsParam(params: Params): number | undefined {
  return params.int("preview_chars", PREVIEW_CHARS_RANGE);
}

/**
 * pdpp extension to 20-rs-api.md: `resume_points` (1–100) on the records list and in changes mode
 * adds `meta.resume_points`: for each of the page's first N records, the continuation (a cursor,
 * or a changes bookmark) that resumes right after it, as next_cursor / next_changes_since would if
 * the page had ended there (null after the last record when nothing follows). The MCP adapter's
 * text shows a few records of a page and hands these out, so paging by what the text shows skips
 * nothing. Presentation only: not part of any cursor binding.
 */
export function resumePointsParam(params: Params): number | undefined {
  return params.int("resume_points", { min: 1, max: 100 });
}

/** `q` (search and field windows) is at most 1,000 characters; past it, a 400 naming the limit. */
export function checkQueryLength(q: string): void {
  if (q.length > MAX_QUERY_CHARS) {
    throw new PdppError("limit_exceeded", `q is limited to ${MAX_QUERY_CHARS} characters.`, { param: "q" });
  }
}

/** Validate one field path against the scopes: declared in at least one, granted wherever declared. */
export function checkFieldPath(field: string, scopes: StreamScope[], param: string): void {
  if (!isFieldPath(field))
    throw invalidRequest(`${param} takes field paths like body or sender.email.`, param);
  requireFieldInEveryConnector(scopes, { field, param });
  const declaring = scopes.filter((s) => fieldSchemaAt(s.stream, field) !== undefined);
  if (declaring.length === 0) {
    throw invalidRequest(
      `${scopes[0].stream.name} has no field ${field}; see schema(stream) for its fields.`,
      param,
    );
  }
  requireInEveryConnector(scopes, {
    param,
    why: `${field} is granted in only some of them`,
    allows: (s) => isFieldGranted(s.stream, s.fields, field),
  });
  if (declaring.some((s) => !isFieldGranted(s.stream, s.fields, field))) throw fieldNotGranted(param);
}

export function fieldsParam(params: Params, scopes: StreamScope[]): string[] | undefined {
  const fields = params.list("fields");
  if (fields === undefined) return undefined;
  if (fields.length === 0) throw invalidRequest("fields needs at least one field name.", "fields");
  for (const f of fields) checkFieldPath(f, scopes, "fields");
  return fields;
}

function defaultSort(scopes: StreamScope[]): SortSpec {
  const first = scopes[0].stream;
  const candidates = [first.cursor_field, first.time_field, first.primary_key[0]].filter(
    (f): f is string => f !== undefined,
  );
  for (const field of candidates) {
    const usable = scopes.every(
      (s) => fieldSchemaAt(s.stream, field) !== undefined && isFieldGranted(s.stream, s.fields, field),
    );
    if (!usable) continue;
    const timeLike = field === first.time_field || isTimeLike(fieldSchemaAt(first, field));
    // Newest first for time-ordered streams; natural key order otherwise.
    return { field, direction: timeLike ? "desc" : "asc" };
  }
  if (new Set(scopes.map((s) => s.connectorKey)).size > 1)
    throw ambiguousStream(scopes, { param: "sort", why: "they have no common default order" });
  throw invalidRequest("this stream has no common default order across its connectors; pass sort.", "sort");
}

/** `sort=field` / `sort=-field`; sortable: cursor_field, time_field, range-filter fields. */
export function sortParam(params: Params, scopes: StreamScope[]): SortSpec {
  const raw = params.single("sort");
  if (raw === undefined || raw === "") return defaultSort(scopes);
  const direction = raw.startsWith("-") ? "desc" : "asc";
  const field = raw.replace(/^[-+]/, "");
  if (!isFieldPath(field))
    throw invalidRequest("sort is a field name, prefixed with - for descending.", "sort");
  requireFieldInEveryConnector(scopes, { field, param: "sort" });
  requireInEveryConnector(scopes, {
    param: "sort",
    why: `${field} is sortable in only some of them`,
    allows: (s) => isFieldGranted(s.stream, s.fields, field) && sortableFields(s.stream).includes(field),
  });
  for (const s of scopes) {
    if (!fieldSchemaAt(s.stream, field)) {
      throw invalidRequest(
        `${s.stream.name} has no field ${field}; see schema(stream) for its fields.`,
        "sort",
      );
    }
    if (!isFieldGranted(s.stream, s.fields, field)) throw fieldNotGranted("sort");
    const sortable = sortableFields(s.stream);
    if (!sortable.includes(field)) {
      throw invalidRequest(
        `${field} is not sortable on ${s.stream.name}; sortable: ${sortable.join(", ") || "none"}.`,
        "sort",
      );
    }
  }
  return { field, direction };
}
