// Sign-in throttling for the owner web app: exponential backoff per client address and for the
// whole server, kept in the store (so every worker process and every instance on one database
// counts together), and at most a few scrypt verifications at once per process (each takes
// 128 MiB for ~1 s). Only failed attempts count; a valid one-time link passes any lock.
import { type BackoffPolicy, backoffFailure, backoffRetryAfter } from "../core/rate-limit.js";
import type { Store } from "../store/store.js";

/** Per client: the 5th failure locks for 30 s, each further one doubles it up to 15 min; a quiet hour forgets. */
export const PER_CLIENT_POLICY: BackoffPolicy = {
  freeFailures: 5,
  baseLockMs: 30_000,
  maxLockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};
/** The whole server (spread-out guessing): the 20th failure locks for 30 s, doubling up to 5 min. */
export const GLOBAL_POLICY: BackoffPolicy = {
  freeFailures: 20,
  baseLockMs: 30_000,
  maxLockMs: 5 * 60_000,
  forgetAfterMs: 60 * 60_000,
};
const MAX_CONCURRENT = 2;
const MAX_WAITING = 8;
const GLOBAL_KEY = "signin:*";
const clientKey = (client: string) => `signin:${client}`;

export type GuardResult =
  | { outcome: "ok" }
  | { outcome: "failed" }
  | { outcome: "throttled"; retryAfterMs: number };

export class SignInGuard {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A passphrase attempt from `client`. During a lock (this address's or the server's) it is
   * answered without running `check` at all, so even the right passphrase learns nothing; a
   * failure counts for this address and for the server.
   */
  async attemptPassphrase(store: Store, client: string, check: () => Promise<boolean>): Promise<GuardResult> {
    const wait = await this.retryAfterMs(store, client);
    if (wait > 0) return { outcome: "throttled", retryAfterMs: wait };
    if (this.running >= MAX_CONCURRENT && this.waiting.length >= MAX_WAITING) {
      return { outcome: "throttled", retryAfterMs: 1000 };
    }
    await this.acquire();
    let ok = false;
    try {
      ok = await check();
    } finally {
      this.release();
    }
    const now = this.now();
    if (ok) {
      await store.updateThrottle(clientKey(client), { now, update: () => null });
      return { outcome: "ok" };
    }
    await store.updateThrottle(clientKey(client), {
      now,
      update: (s) => backoffFailure(s, now, PER_CLIENT_POLICY),
    });
    await store.updateThrottle(GLOBAL_KEY, { now, update: (s) => backoffFailure(s, now, GLOBAL_POLICY) });
    return { outcome: "failed" };
  }

  /**
   * A one-time link attempt. Links are 256-bit secrets: a valid one signs in whatever lock is in
   * force (so nobody can lock the owner out of `pdpp console`); an invalid one counts against this
   * address only (never the server-wide lock), and is answered as throttled while it is locked.
   */
  async attemptLink(store: Store, client: string, check: () => Promise<boolean>): Promise<GuardResult> {
    if (await check()) return { outcome: "ok" };
    const now = this.now();
    const state = await store.updateThrottle(clientKey(client), {
      now,
      update: (s) => backoffFailure(s, now, PER_CLIENT_POLICY),
    });
    const wait = backoffRetryAfter(state, now);
    return wait > 0 ? { outcome: "throttled", retryAfterMs: wait } : { outcome: "failed" };
  }

  private async retryAfterMs(store: Store, client: string): Promise<number> {
    const now = this.now();
    const [own, all] = await Promise.all([
      store.getThrottle(clientKey(client), now),
      store.getThrottle(GLOBAL_KEY, now),
    ]);
    return Math.max(backoffRetryAfter(own, now), backoffRetryAfter(all, now));
  }

  private acquire(): Promise<void> {
    if (this.running < MAX_CONCURRENT) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
