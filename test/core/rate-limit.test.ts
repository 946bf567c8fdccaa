// Throttle arithmetic: backoff locks after the free failures, doubles, caps and forgets after a
// quiet period; a fixed window counts calls and starts over once it has passed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  backoffFailure,
  backoffRetryAfter,
  type ThrottleState,
  windowHit,
} from "../../src/core/rate-limit.js";

const policy = { freeFailures: 3, baseLockMs: 1000, maxLockMs: 5000, forgetAfterMs: 60_000 };

describe("backoff", () => {
  it("locks on the 3rd failure, doubles each further failure up to the cap", () => {
    let s: ThrottleState | null = null;
    s = backoffFailure(s, 0, policy);
    s = backoffFailure(s, 0, policy);
    assert.equal(backoffRetryAfter(s, 0), 0);
    s = backoffFailure(s, 0, policy);
    assert.equal(backoffRetryAfter(s, 0), 1000);
    assert.equal(backoffRetryAfter(s, 400), 600);
    s = backoffFailure(s, 1000, policy);
    assert.equal(backoffRetryAfter(s, 1000), 2000);
    s = backoffFailure(s, 3000, policy);
    assert.equal(backoffRetryAfter(s, 3000), 4000);
    s = backoffFailure(s, 7000, policy);
    assert.equal(backoffRetryAfter(s, 7000), 5000);
    assert.equal(backoffRetryAfter(null, 7000), 0, "an unknown key may try");
  });

  it("a quiet period forgets a key", () => {
    let s: ThrottleState | null = null;
    for (let i = 0; i < 3; i++) s = backoffFailure(s, 0, policy);
    assert.equal(s?.expiresAt, 60_000);
    s = backoffFailure(s, 70_000, policy);
    assert.equal(s.count, 1, "the old failures were forgotten: this is the first again");
    assert.equal(backoffRetryAfter(s, 70_000), 0);
  });

  it("a long lock outlives the forget period", () => {
    const long = { ...policy, baseLockMs: 100_000, maxLockMs: 100_000 };
    let s: ThrottleState | null = null;
    for (let i = 0; i < 3; i++) s = backoffFailure(s, 0, long);
    assert.equal(s?.expiresAt, 100_000);
    assert.equal(backoffRetryAfter(s, 80_000), 20_000);
  });
});

describe("fixed window", () => {
  it("counts calls in a window and starts over after it", () => {
    let s: ThrottleState | null = null;
    for (let i = 0; i < 3; i++) s = windowHit(s, 100 + i, 1000);
    assert.equal(s?.count, 3);
    s = windowHit(s, 1099, 1000);
    assert.equal(s.count, 4);
    s = windowHit(s, 1100, 1000);
    assert.deepEqual(s, { count: 1, since: 1100, lockedUntil: 0, expiresAt: 2100 });
  });
});
