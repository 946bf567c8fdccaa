// Memory given back once a server goes quiet: after a burst of requests the SQLite page cache stays
// at its high-water mark (64 MB per connection), so a short quiet spell after activity shrinks the
// store's caches. The heap is left to V8's own memory reducer, which shrinks it ~10 s after activity
// stops: a forced full GC here was measured to keep ~60 MB more (it defers the reducer and does not
// shrink the young generation). The release runs once per burst, never with a request in flight.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** A full garbage collection, without starting node with --expose-gc (null if unavailable). */
function fullGc(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return null;
  }
}

export interface IdleRelease {
  /** A request started / ended: nothing is released while one is in flight. */
  begin(): void;
  end(): void;
  stop(): void;
}

/**
 * Call `release` once activity has stopped for `quietMs`. One unref'd timeout, re-armed by the last
 * request to end: an idle server runs no timers at all (a periodic check was measured to keep V8's
 * memory reducer from ever shrinking the heap, since it counts as activity).
 */
export function releaseWhenIdle(options: {
  quietMs: number;
  release: () => Promise<void> | void;
}): IdleRelease {
  let inFlight = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const gc = fullGc();
  const fire = () => {
    if (stopped || inFlight > 0) return;
    Promise.resolve()
      .then(options.release)
      .then(() => {
        if (!gc) return;
        // V8 sizes the heap from what survived the previous collection: a second pass, a moment
        // later, shrinks it again (measured: 100 → 76 → 60 MB heap after a burst of 100-record pages).
        gc();
        setTimeout(() => {
          if (!stopped && inFlight === 0) gc();
        }, 1000).unref();
      })
      .catch(() => {
        // Best effort: a failed release only means the memory is kept until the next quiet spell.
      });
  };
  return {
    begin() {
      inFlight++;
    },
    end() {
      inFlight = Math.max(0, inFlight - 1);
      if (inFlight > 0 || stopped) return;
      // refresh() re-arms the one timer, fired or not: no allocation per request.
      if (timer) timer.refresh();
      else timer = setTimeout(fire, options.quietMs).unref();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
