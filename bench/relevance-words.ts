// The relevance bench's own word handling, independent of pdpp's search analysis (which it measures):
// a unicode61-like tokenizer, an English stopword list, and the query forms an agent sends.

/**
 * Lowercased words as SQLite FTS5's default unicode61 tokenizer cuts them: runs of letters and
 * digits, case and diacritics folded (é → e). Everything else separates words.
 */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Common English function words (articles, pronouns, auxiliaries, prepositions, conjunctions): what
 * a retrieval system may ignore without losing meaning. Written for this bench, not taken from the
 * search code it measures.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its itself " +
    "just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which " +
    "while who whom why will with would you your yours yourself yourselves"
  ).split(" "),
);

export type QueryForm = "as-written" | "no-stopwords" | "keywords";
export const QUERY_FORMS: readonly QueryForm[] = ["as-written", "no-stopwords", "keywords"];

/** Document frequency of every word of the collection (a doc counts once per word). */
export function documentFrequencies(docs: Iterable<string>): Map<string, number> {
  const df = new Map<string, number>();
  for (const text of docs) {
    for (const w of new Set(words(text))) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return df;
}

/**
 * The query an agent sends in each form:
 * - as-written: the text unchanged;
 * - no-stopwords: its words (as `words` cuts them) without stopwords, in order;
 * - keywords: its three rarest distinct non-stopword words by document frequency over the
 *   collection, ties broken by first position, in query order. A word no document holds is the
 *   rarest of all and stays in (the agent cannot know; on SciFact this form's FTS5 floor then
 *   reproduces the 0.574).
 */
export function queryForm(form: QueryForm, text: string, df: ReadonlyMap<string, number>): string {
  if (form === "as-written") return text;
  const content = words(text).filter((w) => !STOPWORDS.has(w));
  if (form === "no-stopwords") return content.join(" ");
  const distinct = [...new Set(content)];
  const rarest = new Set(
    distinct
      .map((w, position) => ({ w, position, df: df.get(w) ?? 0 }))
      .sort((a, b) => a.df - b.df || a.position - b.position)
      .slice(0, 3)
      .map((x) => x.w),
  );
  return distinct.filter((w) => rarest.has(w)).join(" ");
}
