// Starting an importer's worker thread, from the built dist or from the sources (a checkout run
// through tsx): a loader registered programmatically, as bin/pdpp.js does, is not inherited by worker
// threads, so from the sources the worker registers tsx itself before importing its entry.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** Start `<name>.js` (or `<name>.ts` from the sources) next to this module with `data` as workerData. */
export function startImporterWorker(name: string, data: unknown): Worker {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData: data });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}
