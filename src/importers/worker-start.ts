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
  const settings = { workerData: data, resourceLimits: WORKER_LIMITS };
  if (!fromSource) return new Worker(entry, settings);
  const code = options.bundle ? bundled(fileURLToPath(entry)) : null;
  if (code !== null) {
    return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), settings);
  }
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...settings, eval: true });
}

/**
 * An importer worker's objects live for one record or one chunk, yet V8 sizes a thread's young
 * generation by the machine's memory (64 MiB on 24 GiB) and lets it grow there under a high
 * allocation rate: a worker's heap reached 170 MB around a 20-40 MB live set (issue 19, claude-code
 * 100 MB: 631 → 527 MB peak RSS at 16 MiB, records per CPU-second unchanged).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 16 };

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
