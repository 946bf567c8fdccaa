// `npm run bench -- --relevance`: pdpp's search on a public judged collection (BEIR layout), on a
// fresh SQLite store and on Postgres, beside SQLite FTS5 bm25() over the same documents in the same
// run and the published BM25 figures: nDCG@10, Recall@100, MRR@10, queries with no hit, store
// agreement on the top 10, MCP `search` agreement on a sample, and per-query latency.
// Flags: --collection DIR|NAME (default scifact, read from bench/data/relevance/<name>/),
// --queries N (the first N judged queries), --store sqlite|postgres|both, --mcp-sample N.
import { loadavg } from "node:os";
import { basename, resolve } from "node:path";
import { percentile } from "./measure.js";
import {
  type Collection,
  defaultCollectionDir,
  KNOWN_COLLECTIONS,
  loadCollection,
  missingCollectionLine,
} from "./relevance-collection.js";
import { type FloorTokenizer, openFts5Floor } from "./relevance-floor.js";
import { meanScores, type Qrels, scoreQuery } from "./relevance-metrics.js";
import {
  type FormResult,
  printRelevanceReport,
  type SystemRun,
  storeDisagreements,
  writeRelevanceResults,
} from "./relevance-report.js";
import { openStoreUnderTest, pgUrl, type StoreUnderTest } from "./relevance-store.js";
import { documentFrequencies, QUERY_FORMS, type QueryForm, queryForm } from "./relevance-words.js";

export interface RelevanceOptions {
  collection: string;
  queries?: number;
  store: "sqlite" | "postgres" | "both";
  mcpSample: number;
}

const RANK_DEPTH = 100;
/** `q` is 1–1,000 characters (20-rs-api.md); longer queries go to every system cut to this. */
const MAX_QUERY_CHARS = 1000;

/** The query cut at the last whitespace within MAX_QUERY_CHARS (counted in UTF-16 units, as the RS counts them). */
export function capQuery(text: string): string {
  if (text.length <= MAX_QUERY_CHARS) return text;
  const head = text.slice(0, MAX_QUERY_CHARS + 1);
  const space = head.search(/\s\S*$/);
  if (space > 0) return head.slice(0, space).trimEnd();
  // No space to cut at: MAX_QUERY_CHARS units, less a high surrogate whose pair would cross the limit.
  return text.slice(0, MAX_QUERY_CHARS).replace(/[\uD800-\uDBFF]$/, "");
}

/** Exit code: 0 measured, 1 the collection is missing (one line says what to download). */
export async function runRelevanceBench(options: RelevanceOptions): Promise<number> {
  const byName = !options.collection.includes("/") && KNOWN_COLLECTIONS[options.collection] !== undefined;
  const dir = byName ? defaultCollectionDir(options.collection) : resolve(options.collection);
  const name = byName ? options.collection : basename(dir);
  const collection = loadCollection(dir, name);
  if (!collection) {
    console.error(missingCollectionLine(name, dir));
    return 1;
  }
  const qids = [...collection.queries.keys()].slice(0, options.queries ?? Number.POSITIVE_INFINITY);
  const qrels: Qrels = new Map(qids.map((q) => [q, collection.qrels.get(q)!]));
  const df = documentFrequencies(collection.docs.map((d) => `${d.title} ${d.text}`));
  let capped = 0;
  const forms = new Map<QueryForm, Map<string, string>>(
    QUERY_FORMS.map((f) => [
      f,
      new Map(
        qids.map((q) => {
          const text = queryForm(f, collection.queries.get(q)!, df);
          const cut = capQuery(text);
          if (cut !== text) capped++;
          return [q, cut];
        }),
      ),
    ]),
  );
  const loadBefore = loadavg();
  console.log(
    `relevance: ${collection.name} (${collection.docs.length.toLocaleString("en")} documents, ` +
      `${qids.length} of ${collection.queries.size} judged queries); load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const notes: string[] = [];
  if (capped > 0) {
    notes.push(
      `${capped} query texts (all forms) were longer than ${MAX_QUERY_CHARS} characters, GET /v1/search's limit: every system got them cut at the last space before it`,
    );
  }
  const runs: SystemRun[] = [];
  for (const tokenizer of ["unicode61", "porter"] as FloorTokenizer[]) {
    runs.push(runFloor(collection, tokenizer, forms, qrels));
  }
  const backends = options.store === "both" ? (["sqlite", "postgres"] as const) : ([options.store] as const);
  for (const backend of backends) {
    let sut: StoreUnderTest;
    try {
      sut = await openStoreUnderTest(backend, collection);
    } catch (error) {
      if (backend !== "postgres") throw error;
      const line = `postgres skipped: cannot open a store at ${pgUrl()} (${(error as Error).message.split("\n")[0]})`;
      console.log(line);
      notes.push(line);
      continue;
    }
    try {
      console.log(`${backend}: imported in ${sut.importSeconds.toFixed(1)} s through the jsonl importer`);
      runs.push(await runStore(sut, forms, qrels, options.mcpSample));
    } finally {
      await sut.close();
    }
  }
  const agreement = storeDisagreements(runs);
  printRelevanceReport({ collection, runs, agreement, notes });
  const file = writeRelevanceResults({
    collection,
    runs,
    agreement,
    notes,
    meta: {
      queries: qids.length,
      loadavg_before: loadBefore,
      loadavg_after: loadavg(),
      node: process.version,
      date: new Date().toISOString(),
    },
  });
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; results written to ${file}`,
  );
  return 0;
}

function runFloor(
  collection: Collection,
  tokenizer: FloorTokenizer,
  forms: Map<QueryForm, Map<string, string>>,
  qrels: Qrels,
): SystemRun {
  const floor = openFts5Floor(collection.docs, tokenizer);
  try {
    const run: SystemRun = { system: `FTS5 bm25() ${tokenizer}`, kind: "floor", forms: {} };
    for (const [form, texts] of forms) {
      const rankings = new Map<string, string[]>();
      const ms: number[] = [];
      for (const [qid, text] of texts) {
        const t0 = performance.now();
        rankings.set(qid, floor.search(text, RANK_DEPTH));
        ms.push(performance.now() - t0);
      }
      run.forms[form] = formResult(rankings, ms, qrels, texts);
    }
    return run;
  } finally {
    floor.close();
  }
}

async function runStore(
  sut: StoreUnderTest,
  forms: Map<QueryForm, Map<string, string>>,
  qrels: Qrels,
  mcpSample: number,
): Promise<SystemRun> {
  const run: SystemRun = { system: `pdpp ${sut.backend}`, kind: "pdpp", backend: sut.backend, forms: {} };
  for (const [form, texts] of forms) {
    const rankings = new Map<string, string[]>();
    const ms: number[] = [];
    const errors: { qid: string; q: string; error: string }[] = [];
    const outside: { qid: string; hits: string[] }[] = [];
    const started = performance.now();
    for (const [qid, text] of texts) {
      const answer = await sut.search(text, RANK_DEPTH);
      rankings.set(qid, answer.ids);
      ms.push(answer.ms);
      if (answer.error) errors.push({ qid, q: text, error: answer.error });
      if (answer.outside.length > 0) outside.push({ qid, hits: answer.outside });
    }
    run.forms[form] = { ...formResult(rankings, ms, qrels, texts), errors, outside };
    console.log(
      `${run.system}: ${form}, ${texts.size} searches in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  // The MCP tool must answer what the HTTP route answers: same ids, same order, for the first N.
  const asWritten = forms.get("as-written")!;
  const sample = [...asWritten].slice(0, mcpSample);
  // …and a page of 10 must be the first 10 of the page of 100 (the limit may not change the order).
  const mismatches: { qid: string; http: string[]; mcp: string[]; error?: string }[] = [];
  const pageMismatches: { qid: string; limit10: string[]; limit100: string[] }[] = [];
  const ms10: number[] = [];
  const top100 = new Map(run.forms["as-written"]!.perQuery.map((q) => [q.qid, q.top10]));
  for (const [qid, text] of sample) {
    const answer = await sut.search(text, 10);
    ms10.push(answer.ms);
    const http = answer.ids;
    const first10 = top100.get(qid) ?? [];
    if (http.join(" ") !== first10.join(" ")) pageMismatches.push({ qid, limit10: http, limit100: first10 });
    const mcp = await sut.mcpSearch(text, 10);
    if (mcp.error || mcp.ids.join(" ") !== http.join(" "))
      mismatches.push({ qid, http, mcp: mcp.ids, error: mcp.error });
  }
  const sorted = ms10.sort((a, b) => a - b);
  run.mcp = {
    sampled: sample.length,
    mismatches,
    pageMismatches,
    limit10_p50_ms: percentile(sorted, 50),
    limit10_p95_ms: percentile(sorted, 95),
  };
  return run;
}

function formResult(
  rankings: Map<string, string[]>,
  ms: number[],
  qrels: Qrels,
  texts: Map<string, string>,
): FormResult {
  const sorted = [...ms].sort((a, b) => a - b);
  const perQuery = [...rankings].map(([qid, ids]) => ({
    qid,
    q: texts.get(qid)!,
    ...scoreQuery(ids, qrels.get(qid)!),
    top10: ids.slice(0, 10),
    hits: ids.length,
  }));
  return {
    scores: meanScores(rankings, qrels),
    p50_ms: percentile(sorted, 50),
    p95_ms: percentile(sorted, 95),
    perQuery,
  };
}
