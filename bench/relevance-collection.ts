// Judged collections for the relevance bench, in BEIR layout (corpus.jsonl, queries.jsonl,
// qrels/test.tsv), read from an ignored folder: what each is, where to get it, what was published.
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Qrels } from "./relevance-metrics.js";

export interface PublishedFigure {
  /** Who measured it, and how. */
  source: string;
  ndcg10: number;
  recall100?: number;
}

export interface KnownCollection {
  name: string;
  /** Where a user downloads it (the public URL), and what unpacking gives. */
  url: string;
  /** Expected counts, checked on load: a truncated or different copy is refused. */
  docs: number;
  testQueries: number;
  licence: string;
  published: PublishedFigure[];
}

export const KNOWN_COLLECTIONS: Record<string, KnownCollection> = {
  scifact: {
    name: "scifact",
    url: "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
    docs: 5183,
    testQueries: 300,
    licence: "CC BY-NC 2.0 (SciFact, Wadden et al. 2020, allenai/scifact)",
    published: [
      {
        source: "BEIR paper (Thakur et al. 2021), BM25 (Elasticsearch, title+text)",
        ndcg10: 0.665,
        recall100: 0.908,
      },
      { source: "Pyserini/Anserini BEIR regressions, BM25 flat (Lucene)", ndcg10: 0.679, recall100: 0.925 },
    ],
  },
  nfcorpus: {
    name: "nfcorpus",
    url: "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/nfcorpus.zip",
    docs: 3633,
    testQueries: 323,
    licence: "NFCorpus (Boteva et al. 2016): free for research use, see its site",
    published: [
      {
        source: "BEIR paper (Thakur et al. 2021), BM25 (Elasticsearch, title+text)",
        ndcg10: 0.325,
        recall100: 0.25,
      },
      { source: "Pyserini/Anserini BEIR regressions, BM25 flat (Lucene)", ndcg10: 0.322, recall100: 0.246 },
    ],
  },
};

export interface Collection {
  name: string;
  dir: string;
  docs: { id: string; title: string; text: string }[];
  /** Query id → text, for the judged queries only. */
  queries: Map<string, string>;
  qrels: Qrels;
  known?: KnownCollection;
}

/** Where the bench looks for a collection by default: bench/data/relevance/<name>/ (ignored). */
export function defaultCollectionDir(name: string): string {
  return join(import.meta.dirname, "data", "relevance", name);
}

/** The one line a user needs when the files are missing: what to download, from where, to where. */
export function missingCollectionLine(name: string, dir: string): string {
  const known = KNOWN_COLLECTIONS[name];
  const where = known
    ? `download ${known.url} and unzip it in ${dirname(dir)} so that ${dir}/corpus.jsonl, queries.jsonl and qrels/test.tsv exist`
    : `put a BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/test.tsv) in ${dir}`;
  return `relevance collection ${name} not found: ${where} (or pass --collection DIR).`;
}

function readLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.trim() !== "");
}

/** qrels/test.tsv: `query-id corpus-id score` with a header, or TREC `qid 0 docid grade`. */
export function parseQrels(lines: string[]): Qrels {
  const qrels: Qrels = new Map();
  for (const [n, line] of lines.entries()) {
    const cols = line.split(/\s+/).filter(Boolean);
    if (n === 0 && !/^-?\d+$/.test(cols[cols.length - 1] ?? "")) continue; // header
    if (cols.length !== 3 && cols.length !== 4) throw new Error(`qrels line ${n + 1}: ${line}`);
    const [qid, docId, grade] = cols.length === 3 ? cols : [cols[0], cols[2], cols[3]];
    const judged = qrels.get(qid) ?? new Map<string, number>();
    judged.set(docId, Number(grade));
    qrels.set(qid, judged);
  }
  return qrels;
}

/**
 * Reads a BEIR-layout collection; null when its files are missing. The judged queries are those of
 * qrels/test.tsv; a collection whose name is known must have exactly the published counts.
 */
export function loadCollection(dir: string, nameHint?: string): Collection | null {
  const files = ["corpus.jsonl", "queries.jsonl", join("qrels", "test.tsv")].map((f) => join(dir, f));
  if (!files.every((f) => existsSync(f))) return null;
  const name = nameHint ?? basename(dir);
  const docs = readLines(files[0]).map((line) => {
    const d = JSON.parse(line) as { _id: string; title?: string; text?: string };
    return { id: String(d._id), title: d.title ?? "", text: d.text ?? "" };
  });
  const qrels = parseQrels(readLines(files[2]));
  const queries = new Map<string, string>();
  for (const line of readLines(files[1])) {
    const q = JSON.parse(line) as { _id: string; text: string };
    if (qrels.has(String(q._id))) queries.set(String(q._id), q.text);
  }
  for (const qid of qrels.keys()) {
    if (!queries.has(qid)) throw new Error(`${name}: judged query ${qid} is not in queries.jsonl`);
  }
  const known = KNOWN_COLLECTIONS[name];
  if (known && (docs.length !== known.docs || qrels.size !== known.testQueries)) {
    throw new Error(
      `${name} in ${dir} has ${docs.length} documents and ${qrels.size} judged queries; ` +
        `the published collection has ${known.docs} and ${known.testQueries}: a partial or different copy?`,
    );
  }
  return { name, dir, docs, queries, qrels, known };
}
