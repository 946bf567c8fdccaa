// A fixed-window rate limiter for unauthenticated endpoints (client registration, /authorize), per
// caller and overall. The counts live in the store, so `--workers N` and several instances on one
// database share one limit instead of N.
import { windowHit } from "../core/rate-limit.js";
import type { Store } from "../store/store.js";

export class RateLimiter {
  constructor(
    private readonly name: string,
    private readonly options: { perKey: number; total: number; windowMs: number },
  ) {}

  /** Count one call by `key`; false when the key or everyone together is over the limit. */
  async allow(store: Store, key: string, now = Date.now()): Promise<boolean> {
    const hit = (k: string) =>
      store.updateThrottle(`${this.name}:${k}`, {
        now,
        update: (s) => windowHit(s, now, this.options.windowMs),
      });
    const total = await hit("*");
    const mine = await hit(`@${key}`);
    return (total?.count ?? 0) <= this.options.total && (mine?.count ?? 0) <= this.options.perKey;
  }
}
