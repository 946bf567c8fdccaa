// `pdpp serve --workers N`: one process per core sharing one port (node:cluster; the primary
// accepts connections and hands them to workers in turn). Each worker opens its own store (SQLite
// in WAL mode, readers never block each other; or its own Postgres pool) and runs the whole app;
// the primary only supervises: it starts the workers, prints where they listen, and on SIGINT/
// SIGTERM asks each to close gracefully (which flushes its buffered access-log rows).
import cluster, { type Worker } from "node:cluster";
import { PdppError } from "../core/errors.js";

/** What a worker tells the primary. */
export type WorkerMessage = { type: "listening"; url: string } | { type: "failed"; message: string };

export interface ClusterOptions {
  workers: number;
  /** Called once, when every worker listens, with the URL they share. */
  onReady(url: string): void;
  /** Resolves when the primary should stop (a signal). */
  stopSignal: Promise<unknown>;
}

/** Run the workers until `stopSignal`; resolves once all have exited, or rejects when one fails to start. */
export function runCluster(options: ClusterOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const workers = new Set<Worker>();
    let listening = 0;
    let stopping = false;
    let failed: Error | undefined;
    const stopAll = () => {
      stopping = true;
      for (const w of workers) w.process.kill("SIGTERM");
    };
    const start = (): Worker => {
      const worker = cluster.fork();
      workers.add(worker);
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "failed") {
          failed ??= new PdppError("invalid_request", message.message);
          stopAll();
        } else if (message.type === "listening" && ++listening === options.workers) {
          options.onReady(message.url);
        }
      });
      worker.once("exit", (code, signal) => {
        workers.delete(worker);
        if (!stopping) {
          // A crashed worker is replaced so the server keeps its capacity.
          process.stderr.write(
            `pdpp: worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`,
          );
          listening -= 1;
          start();
          return;
        }
        if (workers.size === 0) failed ? reject(failed) : resolve();
      });
      return worker;
    };
    for (let i = 0; i < options.workers; i++) start();
    void options.stopSignal.then(stopAll);
  });
}

/** In a worker: tell the primary. */
export function tellPrimary(message: WorkerMessage): void {
  process.send?.(message);
}
