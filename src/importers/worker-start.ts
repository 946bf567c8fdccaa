// Starting an importer's worker thread, from the built dist or from the sources (a checkout run
// through tsx): a loader registered programmatically, as bin/pdpp.js does, is not inherited by worker
// threads, so from the sources the worker registers tsx itself before importing its entry — or, for
// a worker whose modules need no package, runs them bundled by esbuild (the compiler tsx itself
// runs on): ~100 ms to start instead of ~300 ms, time an import's main thread would spend waiting.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Start `<name>.js` (or `<name>.ts` from the sources) next to this module with `data` as workerData;
 * `bundle`: its modules import only node: builtins, so from the sources they may run bundled.
 */
export function startImporterWorker(name: string, data: unknown, options: { bundle?: boolean } = {}): Worker {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData: data });
  const code = options.bundle ? bundled(fileURLToPath(entry)) : null;
  if (code !== null) {
    return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: data });
  }
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

/** One bundle per entry and process; null (start through tsx) when esbuild is not at hand. */
const bundles = new Map<string, string | null>();

function bundled(path: string): string | null {
  let code = bundles.get(path);
  if (code === undefined) {
    try {
      const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
      const built = esbuild.buildSync({
        entryPoints: [path],
        bundle: true,
        format: "esm",
        platform: "node",
        target: "node20",
        keepNames: true,
        write: false,
        logLevel: "silent",
      });
      code = built.outputFiles[0]?.text ?? null;
    } catch {
      code = null;
    }
    bundles.set(path, code);
  }
  return code;
}
