// Classic SMART-format test collections (CISI and its kin from the Glasgow IR resources: X.ALL,
// X.QRY, X.REL) read into the relevance bench's shape, so they need no conversion step.
import { readFileSync } from "node:fs";
import type { Qrels } from "./relevance-metrics.js";

/** One `.I n` record: its id and each field (`T`, `A`, `W`, …) as one line of text. */
export function parseSmartRecords(text: string): { id: string; fields: Record<string, string> }[] {
  const records: { id: string; fields: Record<string, string> }[] = [];
  let field: string | null = null;
  const lines: Record<string, string[]> = {};
  const flush = () => {
    const last = records[records.length - 1];
    if (!last) return;
    for (const [name, parts] of Object.entries(lines)) {
      last.fields[name] = parts.join(" ").replace(/\s+/g, " ").trim();
      delete lines[name];
    }
  };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const id = /^\.I\s+(\S+)/.exec(line);
    if (id) {
      flush();
      records.push({ id: id[1], fields: {} });
      field = null;
      continue;
    }
    const marker = /^\.([A-Z])\s*$/.exec(line);
    if (marker) {
      field = marker[1];
      lines[field] ??= [];
      continue;
    }
    if (field && records.length > 0) lines[field].push(line);
  }
  flush();
  return records;
}

/** X.REL: `query-id doc-id [0 0.0]` per line, whitespace-separated; every pair judged relevant (1). */
export function parseSmartQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  for (const [n, line] of text.split("\n").entries()) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === "") continue;
    if (cols.length < 2) throw new Error(`REL line ${n + 1}: ${line}`);
    const judged = qrels.get(cols[0]) ?? new Map<string, number>();
    judged.set(cols[1], 1);
    qrels.set(cols[0], judged);
  }
  return qrels;
}

/** Documents (title `.T`, text `.W`), query texts (`.W`) and judgements of a SMART collection. */
export function readSmartCollection(paths: { all: string; qry: string; rel: string }) {
  const docs = parseSmartRecords(readFileSync(paths.all, "latin1")).map((r) => ({
    id: r.id,
    title: r.fields.T ?? "",
    text: r.fields.W ?? "",
  }));
  const queryTexts = new Map(
    parseSmartRecords(readFileSync(paths.qry, "latin1")).map((r) => [r.id, r.fields.W ?? ""]),
  );
  return { docs, queryTexts, qrels: parseSmartQrels(readFileSync(paths.rel, "latin1")) };
}
