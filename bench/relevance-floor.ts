// The relevance floor measured in the same run: a plain SQLite FTS5 table over the same documents
// (title and text columns), ranked by FTS5's bm25(), the query sent as an OR of its words.
import Database from "better-sqlite3";
import { words } from "./relevance-words.js";

export type FloorTokenizer = "unicode61" | "porter";

export interface Fts5Floor {
  tokenizer: FloorTokenizer;
  /** The first `limit` doc ids by bm25(), best first (ties by rowid, i.e. corpus order). */
  search(query: string, limit: number): string[];
  close(): void;
}

/** The FTS5 MATCH expression for a query: each distinct word quoted, joined by OR; null if none. */
export function orOfWords(query: string): string | null {
  const distinct = [...new Set(words(query))];
  if (distinct.length === 0) return null;
  return distinct.map((w) => `"${w.replaceAll('"', '""')}"`).join(" OR ");
}

/** An in-memory FTS5 index of `docs` with the default unicode61 tokenizer, or porter over it. */
export function openFts5Floor(
  docs: readonly { id: string; title: string; text: string }[],
  tokenizer: FloorTokenizer,
): Fts5Floor {
  const db = new Database(":memory:");
  const tokenize = tokenizer === "porter" ? "porter unicode61" : "unicode61";
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = '${tokenize}')`);
  const insert = db.prepare("INSERT INTO docs (id, title, text) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const d of docs) insert.run(d.id, d.title, d.text);
  })();
  const select = db.prepare("SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?");
  return {
    tokenizer,
    search(query, limit) {
      const match = orOfWords(query);
      if (match === null) return [];
      return (select.all(match, limit) as { id: string }[]).map((r) => r.id);
    },
    close: () => db.close(),
  };
}
