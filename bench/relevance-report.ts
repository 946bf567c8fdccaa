// The relevance bench's output: one table per query form (pdpp on each store, the same-run FTS5
// floors, the published BM25 figures), store agreement, MCP agreement, defects, and the JSON file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Collection } from "./relevance-collection.js";
import type { MeanScores } from "./relevance-metrics.js";
import { QUERY_FORMS, type QueryForm } from "./relevance-words.js";

export interface FormResult {
  scores: MeanScores;
  p50_ms: number;
  p95_ms: number;
  perQuery: {
    qid: string;
    q: string;
    ndcg10: number;
    recall100: number;
    mrr10: number;
    top10: string[];
    hits: number;
  }[];
  errors?: { qid: string; q: string; error: string }[];
  outside?: { qid: string; hits: string[] }[];
}

export interface SystemRun {
  system: string;
  kind: "pdpp" | "floor";
  backend?: "sqlite" | "postgres";
  forms: Partial<Record<QueryForm, FormResult>>;
  /** The sample of queries as written asked at limit 10: over MCP, and against the limit-100 page. */
  mcp?: {
    sampled: number;
    mismatches: { qid: string; http: string[]; mcp: string[]; error?: string }[];
    pageMismatches: { qid: string; limit10: string[]; limit100: string[] }[];
    limit10_p50_ms: number;
    limit10_p95_ms: number;
  };
}

export interface Disagreement {
  form: QueryForm;
  judged: number;
  differing: { qid: string; q: string; sqlite: string[]; postgres: string[] }[];
}

/** The floor the targets are measured against: FTS5 bm25() with the porter stemmer (the stronger). */
export const TARGET_FLOOR = "FTS5 bm25() porter";
export const TARGET_RATIO = 0.97;

/** Judged queries whose top-10 ids or order differ between pdpp on SQLite and on Postgres. */
export function storeDisagreements(runs: SystemRun[]): Disagreement[] | null {
  const sqlite = runs.find((r) => r.backend === "sqlite");
  const postgres = runs.find((r) => r.backend === "postgres");
  if (!sqlite || !postgres) return null;
  return QUERY_FORMS.map((form) => {
    const pg = new Map(postgres.forms[form]!.perQuery.map((q) => [q.qid, q.top10]));
    const lite = sqlite.forms[form]!.perQuery;
    const differing = lite
      .filter((q) => q.top10.join(" ") !== (pg.get(q.qid) ?? []).join(" "))
      .map((q) => ({ qid: q.qid, q: q.q, sqlite: q.top10, postgres: pg.get(q.qid) ?? [] }));
    return { form, judged: lite.length, differing };
  });
}

const f3 = (n: number) => n.toFixed(3);
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

export function printRelevanceReport(args: {
  collection: Collection;
  runs: SystemRun[];
  agreement: Disagreement[] | null;
  notes: string[];
}): void {
  const { collection, runs, agreement } = args;
  const floorOf = (form: QueryForm, system: string) =>
    runs.find((r) => r.system === system)?.forms[form]?.scores.ndcg10;
  const header = `${"system".padEnd(24)} ${"nDCG@10".padStart(8)} ${"R@100".padStart(7)} ${"MRR@10".padStart(7)} ${"no hit".padStart(9)} ${"×porter".padStart(8)} ${"×uni61".padStart(7)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}`;
  for (const form of QUERY_FORMS) {
    const porter = floorOf(form, TARGET_FLOOR);
    const uni = floorOf(form, "FTS5 bm25() unicode61");
    console.log(`\nquery form: ${form}`);
    console.log(header);
    for (const run of runs) {
      const r = run.forms[form];
      if (!r) continue;
      const s = r.scores;
      const ratio = (floor: number | undefined) => (floor ? (s.ndcg10 / floor).toFixed(2) : "—");
      console.log(
        `${run.system.padEnd(24)} ${f3(s.ndcg10).padStart(8)} ${f3(s.recall100).padStart(7)} ${f3(s.mrr10).padStart(7)} ` +
          `${`${s.noHit}/${s.queries}`.padStart(9)} ${ratio(porter).padStart(8)} ${ratio(uni).padStart(7)} ` +
          `${ms(r.p50_ms).padStart(8)} ${ms(r.p95_ms).padStart(8)}`,
      );
    }
    if (form === "as-written") {
      for (const p of collection.known?.published ?? []) {
        console.log(
          `${"published BM25".padEnd(24)} ${f3(p.ndcg10).padStart(8)} ${(p.recall100 === undefined ? "—" : f3(p.recall100)).padStart(7)}   (${p.source}; all ${collection.known?.testQueries} queries)`,
        );
      }
    }
  }
  console.log(
    "\nlatency: pdpp = GET /v1/search?limit=100 through the in-process app (cursor followed if needed); floor = the FTS5 statement alone",
  );
  const published = Math.min(...(collection.known?.published ?? []).map((p) => p.ndcg10));
  const floor = floorOf("as-written", TARGET_FLOOR);
  for (const run of runs.filter((r) => r.kind === "pdpp")) {
    const got = run.forms["as-written"]!.scores.ndcg10;
    const needFloor = floor === undefined ? Number.NaN : TARGET_RATIO * floor;
    const meets = got >= needFloor && (!Number.isFinite(published) || got >= published);
    console.log(
      `target (${run.system}, as written): nDCG@10 ${f3(got)} ≥ ${TARGET_RATIO} × same-run ${TARGET_FLOOR} = ${f3(needFloor)}` +
        (Number.isFinite(published) ? ` and ≥ published ${f3(published)}` : "") +
        `: ${meets ? "met" : "NOT met"}`,
    );
  }
  if (agreement === null) console.log("store agreement: not measured (one store ran)");
  else {
    for (const d of agreement) {
      console.log(
        `store agreement (${d.form}): ${d.differing.length} of ${d.judged} judged queries differ in top-10 ids or order (target 0)`,
      );
      for (const x of d.differing.slice(0, 3)) {
        console.log(
          `  q ${x.qid} ${JSON.stringify(x.q.slice(0, 80))}: sqlite [${x.sqlite.slice(0, 5).join(" ")}…] postgres [${x.postgres.slice(0, 5).join(" ")}…]`,
        );
      }
    }
  }
  for (const run of runs.filter((r) => r.kind === "pdpp")) printDefects(run);
  for (const note of args.notes) console.log(note);
}

function printDefects(run: SystemRun): void {
  if (run.mcp) {
    const m = run.mcp.mismatches;
    console.log(
      `${run.system}: MCP search (limit 10) vs GET /v1/search on ${run.mcp.sampled} queries as written: ${m.length} differ`,
    );
    for (const x of m.slice(0, 3))
      console.log(
        `  q ${x.qid}: http [${x.http.join(" ")}] mcp [${x.mcp.join(" ")}]${x.error ? ` error ${x.error}` : ""}`,
      );
    const p = run.mcp.pageMismatches;
    console.log(
      `${run.system}: GET /v1/search limit 10 vs the first 10 of limit 100, same ${run.mcp.sampled} queries: ${p.length} differ; ` +
        `limit-10 latency p50 ${ms(run.mcp.limit10_p50_ms)} ms, p95 ${ms(run.mcp.limit10_p95_ms)} ms`,
    );
    for (const x of p.slice(0, 3))
      console.log(`  q ${x.qid}: limit 10 [${x.limit10.join(" ")}] limit 100 [${x.limit100.join(" ")}]`);
  }
  for (const form of QUERY_FORMS) {
    const r = run.forms[form];
    for (const e of (r?.errors ?? []).slice(0, 3))
      console.log(
        `${run.system} (${form}): FAILED q ${e.qid} ${JSON.stringify(e.q.slice(0, 80))} → ${e.error}`,
      );
    if ((r?.errors?.length ?? 0) > 3) console.log(`  … ${r!.errors!.length} failed queries in all`);
    for (const o of (r?.outside ?? []).slice(0, 3))
      console.log(
        `${run.system} (${form}): DEFECT q ${o.qid} returned hits outside the grant: ${o.hits.slice(0, 3).join(", ")}`,
      );
  }
}

export function writeRelevanceResults(args: {
  collection: Collection;
  runs: SystemRun[];
  agreement: Disagreement[] | null;
  notes: string[];
  meta: Record<string, unknown>;
}): string {
  const dir = join(import.meta.dirname, "results");
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    `relevance-${args.collection.name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  );
  const body = {
    meta: {
      collection: args.collection.name,
      docs: args.collection.docs.length,
      ...args.meta,
      notes: args.notes,
    },
    published: args.collection.known?.published ?? [],
    target: { floor: TARGET_FLOOR, ratio: TARGET_RATIO },
    runs: args.runs,
    agreement: args.agreement,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 1)}\n`);
  return file;
}
