// Throttle arithmetic (pure; the caller passes the clock and keeps the state, in the store so that
// every worker process and every instance on one database shares it): failures per key back off
// exponentially (sign-in), and fixed windows count calls (unauthenticated OAuth endpoints).

/** One key's state. Backoff: count = failures, since = last failure. Window: count = calls, since = window start. */
export interface ThrottleState {
  count: number;
  since: number;
  lockedUntil: number;
  /** When the store may forget the key (ms since the epoch). */
  expiresAt: number;
}

export interface BackoffPolicy {
  /** Failures before the first lock: the freeFailures-th failure in a row locks the key. */
  freeFailures: number;
  /** The first lock lasts this long; each further failure doubles it, up to maxLockMs. */
  baseLockMs: number;
  maxLockMs: number;
  /** A key with no failure for this long starts over. */
  forgetAfterMs: number;
}

/** Milliseconds until a key in `state` may try again; 0 when it may try now. */
export function backoffRetryAfter(state: ThrottleState | null, now: number): number {
  return state && state.expiresAt > now ? Math.max(0, state.lockedUntil - now) : 0;
}

/** The state after one more failure at `now`. */
export function backoffFailure(
  state: ThrottleState | null,
  now: number,
  policy: BackoffPolicy,
): ThrottleState {
  const live = state && state.expiresAt > now ? state : null;
  const failures = (live?.count ?? 0) + 1;
  const over = failures - policy.freeFailures;
  const lockedUntil =
    over >= 0
      ? now + Math.min(policy.maxLockMs, policy.baseLockMs * 2 ** Math.min(over, 30))
      : (live?.lockedUntil ?? 0);
  return {
    count: failures,
    since: now,
    lockedUntil,
    expiresAt: Math.max(now + policy.forgetAfterMs, lockedUntil),
  };
}

/** The state after one more call in a fixed window of `windowMs` (a new window once it has passed). */
export function windowHit(state: ThrottleState | null, now: number, windowMs: number): ThrottleState {
  if (!state || now - state.since >= windowMs || state.expiresAt <= now)
    return { count: 1, since: now, lockedUntil: 0, expiresAt: now + windowMs };
  return { ...state, count: state.count + 1 };
}
