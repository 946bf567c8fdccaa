// Per-hit details for Postgres search: title (when granted), matched fields and a snippet, each from
// granted fields only, built by the same core helpers as SQLite so both stores print the same.
import { isFieldGranted } from "../../core/capabilities.js";
import type { StreamScope } from "../../core/grant.js";
import { getPath } from "../../core/projection.js";
import type { SearchTerm } from "../../core/search-query.js";
import { buildSnippet, matchesTerms } from "../../core/snippet.js";
import type { StoredSearchHit } from "../store.js";
import type { Queryable } from "./pool.js";
import { searchableTextRaw } from "./search-index.js";
import { grantedSearchFields } from "./search-sql.js";
import { readTextPrefixes } from "./text-store.js";

type HitDetails = Pick<StoredSearchHit, "title" | "snippet" | "matchedFields">;

interface HitRow {
  rid: string;
  stream: string;
  connection_id: string;
  payload: Record<string, unknown>;
}

export async function buildHitDetails(
  db: Queryable,
  rows: HitRow[],
  options: { scopeOf: (row: HitRow) => StreamScope; terms: SearchTerm[] },
): Promise<HitDetails[]> {
  const plans = rows.map((row) => {
    const scope = options.scopeOf(row);
    const textFields = new Set(scope.stream.text_fields ?? []);
    const fields = grantedSearchFields(scope);
    const titleField = scope.stream.title_field;
    const titleGranted = titleField !== undefined && isFieldGranted(scope.stream, scope.fields, titleField);
    const needText = [...fields, ...(titleGranted ? [titleField] : [])].filter((f) => textFields.has(f));
    return { row, scope, fields, titleField: titleGranted ? titleField : undefined, needText };
  });
  const paths = [...new Set(plans.flatMap((p) => p.needText))];
  const rids = plans.filter((p) => p.needText.length > 0).map((p) => p.row.rid);
  const texts = await readTextPrefixes(db, rids, { paths });

  return plans.map(({ row, fields, titleField, needText }) => {
    const fieldValue = (path: string): unknown =>
      needText.includes(path) ? texts.get(row.rid)?.get(path)?.text : getPath(row.payload, path);
    const matchedFields: string[] = [];
    let snippet: HitDetails["snippet"] = null;
    for (const field of fields) {
      const text = searchableTextRaw(fieldValue(field));
      if (!matchesTerms(text, options.terms)) continue;
      matchedFields.push(field);
      if (!snippet) {
        const built = buildSnippet(text, options.terms);
        if (built) snippet = { field, text: built };
      }
    }
    const title = titleField ? fieldValue(titleField) : undefined;
    return { title: typeof title === "string" ? title : null, snippet, matchedFields };
  });
}
