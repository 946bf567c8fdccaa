// Sign-in throttling for the owner web app: exponential backoff per client address and for the
// whole server, and at most a few scrypt verifications at once (each takes 128 MiB for ~1 s).
import { type BackoffPolicy, FailureBackoff } from "../core/rate-limit.js";

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
const GLOBAL_KEY = "*";

export type GuardResult =
  | { outcome: "ok" }
  | { outcome: "failed" }
  | { outcome: "throttled"; retryAfterMs: number };

export class SignInGuard {
  private readonly perClient = new FailureBackoff(PER_CLIENT_POLICY);
  private readonly global = new FailureBackoff(GLOBAL_POLICY);
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Run `check` for a sign-in attempt from `client` unless a lock is in force. A locked caller is
   * answered without running `check` at all, so during a lock even the right passphrase learns
   * nothing. `global: false` (one-time links, 256-bit secrets) skips the server-wide lock, so an
   * attack from many addresses cannot lock the owner out of `pdpp console`.
   */
  async attempt(
    client: string,
    check: () => Promise<boolean>,
    options: { global: boolean } = { global: true },
  ): Promise<GuardResult> {
    const wait = this.retryAfterMs(client, options.global);
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
    const at = this.now();
    if (ok) {
      this.perClient.recordSuccess(client);
      return { outcome: "ok" };
    }
    this.perClient.recordFailure(client, at);
    if (options.global) this.global.recordFailure(GLOBAL_KEY, at);
    return { outcome: "failed" };
  }

  retryAfterMs(client: string, includeGlobal: boolean): number {
    const at = this.now();
    const own = this.perClient.retryAfterMs(client, at);
    return includeGlobal ? Math.max(own, this.global.retryAfterMs(GLOBAL_KEY, at)) : own;
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
