// A small fixed-window rate limiter (in memory, per process): bounds how fast unauthenticated
// endpoints such as client registration can be called, per caller and overall.
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: { perKey: number; total: number; windowMs: number }) {}

  /** Count one call by `key`; false when the key or everyone together is over the limit. */
  allow(key: string, now = Date.now()): boolean {
    const total = this.hit("\u0000total", now);
    const mine = this.hit(key, now);
    return total <= this.options.total && mine <= this.options.perKey;
  }

  private hit(key: string, now: number): number {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.options.windowMs) {
      if (this.windows.size > 10_000) this.windows.clear(); // bounded memory under a flood
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    return w.count;
  }
}
