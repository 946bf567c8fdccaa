// The message channel between an importer's main thread and its worker (mbox-worker.ts,
// generic-worker.ts): chunks flow under a credit window (the worker may have `window` "items"
// messages in flight and the main thread returns a credit as it takes one), so memory stays bounded
// while the worker runs ahead; a "failed" message becomes the same typed error on the main thread.
// Imports nothing but core errors, so a worker bundled from the sources stays builtins-only.
import type { MessagePort, Worker } from "node:worker_threads";
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";

export type FailedMessage = { kind: "failed"; code: string; message: string };

/** Worker side: posts a message, first waiting for a credit when it is an "items" message. */
export function creditPoster<M extends { kind: string }>(
  port: MessagePort,
  window: number,
): (message: M) => Promise<void> {
  let credits = window;
  let wake: (() => void) | null = null;
  port.on("message", () => {
    credits++;
    wake?.();
    wake = null;
  });
  return async (message) => {
    while (message.kind === "items" && credits <= 0) await new Promise<void>((resolve) => (wake = resolve));
    if (message.kind === "items") credits--;
    port.postMessage(message);
  };
}

/** Worker side: what to post for an error the worker caught (its typed code kept). */
export function failedMessage(error: unknown): FailedMessage {
  const code = error instanceof PdppError ? error.code : "internal_error";
  return { kind: "failed", code, message: (error as Error).message };
}

/**
 * Main side: the worker's messages in order, through "done"; a "failed" message, or the thread
 * crashing or exiting first, throws. Taking an "items" message returns its credit. The worker is
 * terminated when the consumer stops, whether it finished or not.
 */
export async function* workerMessages<M extends { kind: string }>(
  worker: Worker,
  thread: string,
): AsyncGenerator<Exclude<M, FailedMessage>> {
  const inbox: M[] = [];
  let waiting: (() => void) | null = null;
  let crashed: Error | null = null;
  const wake = () => {
    waiting?.();
    waiting = null;
  };
  worker.on("message", (message: M) => {
    inbox.push(message);
    wake();
  });
  worker.on("error", (error) => {
    crashed = error;
    wake();
  });
  worker.on("exit", (code) => {
    crashed ??= new PdppError("internal_error", `${thread} exited (code ${code})`);
    wake();
  });
  try {
    for (;;) {
      const message = inbox.shift();
      if (!message) {
        if (crashed) throw crashed;
        await new Promise<void>((resolve) => (waiting = resolve));
        continue;
      }
      if (message.kind === "failed") {
        const failed = message as unknown as FailedMessage;
        throw new PdppError(errorCode(failed.code), failed.message);
      }
      if (message.kind === "items") worker.postMessage("credit"); // taken: one more may be posted
      yield message as Exclude<M, FailedMessage>;
      if (message.kind === "done") return;
    }
  } finally {
    worker.removeAllListeners("exit");
    await worker.terminate();
  }
}

function errorCode(code: string): ErrorCode {
  return code in ERROR_CODES ? (code as ErrorCode) : "internal_error";
}
