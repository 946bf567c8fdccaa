// Sign-in throttling (pure; the caller passes the clock): failures per key back off exponentially,
// so guessing a passphrase is slowed to a crawl per client and globally.

export interface BackoffPolicy {
  /** Failures before the first lock: the freeFailures-th failure in a row locks the key. */
  freeFailures: number;
  /** The first lock lasts this long; each further failure doubles it, up to maxLockMs. */
  baseLockMs: number;
  maxLockMs: number;
  /** A key with no failure for this long starts over. */
  forgetAfterMs: number;
}

interface KeyState {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export class FailureBackoff {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly maxKeys = 10_000,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string, now: number): number {
    const state = this.current(key, now);
    return state ? Math.max(0, state.lockedUntil - now) : 0;
  }

  recordFailure(key: string, now: number): void {
    const state = this.current(key, now) ?? { failures: 0, lastFailure: now, lockedUntil: 0 };
    state.failures += 1;
    state.lastFailure = now;
    const over = state.failures - this.policy.freeFailures;
    if (over >= 0) {
      const lock = Math.min(this.policy.maxLockMs, this.policy.baseLockMs * 2 ** Math.min(over, 30));
      state.lockedUntil = now + lock;
    }
    this.keys.delete(key); // re-insert: the Map's order is then least-recently-failed first
    this.keys.set(key, state);
    if (this.keys.size > this.maxKeys) {
      const oldest = this.keys.keys().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
  }

  recordSuccess(key: string): void {
    this.keys.delete(key);
  }

  private current(key: string, now: number): KeyState | undefined {
    const state = this.keys.get(key);
    if (state && now - state.lastFailure > this.policy.forgetAfterMs && now >= state.lockedUntil) {
      this.keys.delete(key);
      return undefined;
    }
    return state;
  }
}
