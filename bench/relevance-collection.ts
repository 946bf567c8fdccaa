// Judged collections for the relevance bench, in BEIR layout (corpus.jsonl, queries.jsonl,
// qrels/test.tsv) or classic SMART files (X.ALL, X.QRY, X.REL), read from an ignored folder: what
// each is, where to get it, what was published.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Qrels } from "./relevance-metrics.js";
import { readSmartCollection } from "./relevance-smart.js";

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
  /** BEIR layout (a zip holding <name>/…), or SMART files of this prefix (a tar of X.ALL, X.QRY, X.REL). */
  smart?: string;
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
  cisi: {
    name: "cisi",
    url: "http://ir.dcs.gla.ac.uk/resources/test_collections/cisi/cisi.tar.gz",
    smart: "CISI",
    docs: 1460,
    testQueries: 76,
    licence:
      "CISI (Glasgow IR resources test collections): freely distributed for research, no stated licence",
    published: [],
  },
};

export interface Collection {
  name: string;
  dir: string;
  /** The BEIR corpus.jsonl to import as is; null when the documents come from another layout. */
  corpusJsonl: string | null;
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
  const files = known?.smart
    ? `${dir}/${known.smart}.ALL, ${known.smart}.QRY and ${known.smart}.REL exist`
    : `${dir}/corpus.jsonl, queries.jsonl and qrels/test.tsv exist`;
  const where = known
    ? `download ${known.url} and ${known.smart ? `untar it in ${dir}` : `unzip it in ${dirname(dir)}`} so that ${files}`
    : `put a BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/test.tsv) or SMART files (X.ALL, X.QRY, X.REL) in ${dir}`;
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

/** The SMART prefix of a folder holding X.ALL, X.QRY and X.REL, or null. */
function smartPrefix(dir: string): string | null {
  if (!existsSync(dir)) return null;
  const names = new Set(readdirSync(dir));
  const all = [...names].find((n) => n.endsWith(".ALL") && names.has(n.replace(/ALL$/, "QRY")));
  const prefix = all?.slice(0, -".ALL".length);
  return prefix && names.has(`${prefix}.REL`) ? prefix : null;
}

/**
 * Reads a collection in BEIR layout or SMART files; null when its files are missing. The judged
 * queries are those with judgements; a collection whose name is known must have exactly the
 * published counts.
 */
export function loadCollection(dir: string, nameHint?: string): Collection | null {
  const name = nameHint ?? basename(dir);
  const beir = ["corpus.jsonl", "queries.jsonl", join("qrels", "test.tsv")].map((f) => join(dir, f));
  let docs: Collection["docs"];
  let queryTexts: Map<string, string>;
  let qrels: Qrels;
  let corpusJsonl: string | null = null;
  const smart = smartPrefix(dir);
  if (beir.every((f) => existsSync(f))) {
    corpusJsonl = beir[0];
    docs = readLines(beir[0]).map((line) => {
      const d = JSON.parse(line) as { _id: string; title?: string; text?: string };
      return { id: String(d._id), title: d.title ?? "", text: d.text ?? "" };
    });
    qrels = parseQrels(readLines(beir[2]));
    queryTexts = new Map(
      readLines(beir[1]).map((line) => {
        const q = JSON.parse(line) as { _id: string; text: string };
        return [String(q._id), q.text];
      }),
    );
  } else if (smart) {
    const at = (ext: string) => join(dir, `${smart}.${ext}`);
    ({ docs, queryTexts, qrels } = readSmartCollection({ all: at("ALL"), qry: at("QRY"), rel: at("REL") }));
  } else return null;
  const queries = new Map([...queryTexts].filter(([qid]) => qrels.has(qid)));
  for (const qid of qrels.keys()) {
    if (!queries.has(qid)) throw new Error(`${name}: judged query ${qid} is not among the queries`);
  }
  const known = KNOWN_COLLECTIONS[name];
  if (known && (docs.length !== known.docs || qrels.size !== known.testQueries)) {
    throw new Error(
      `${name} in ${dir} has ${docs.length} documents and ${qrels.size} judged queries; ` +
        `the published collection has ${known.docs} and ${known.testQueries}: a partial or different copy?`,
    );
  }
  return { name, dir, corpusJsonl, docs, queries, qrels, known };
}
