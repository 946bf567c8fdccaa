// FailureBackoff: locks after the free failures, doubles, caps, forgets after a quiet period.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FailureBackoff } from "../../src/core/rate-limit.js";

const policy = { freeFailures: 3, baseLockMs: 1000, maxLockMs: 5000, forgetAfterMs: 60_000 };

describe("FailureBackoff", () => {
  it("locks on the 3rd failure, doubles each further failure up to the cap", () => {
    const b = new FailureBackoff(policy);
    b.recordFailure("ip", 0);
    b.recordFailure("ip", 0);
    assert.equal(b.retryAfterMs("ip", 0), 0);
    b.recordFailure("ip", 0);
    assert.equal(b.retryAfterMs("ip", 0), 1000);
    assert.equal(b.retryAfterMs("ip", 400), 600);
    b.recordFailure("ip", 1000);
    assert.equal(b.retryAfterMs("ip", 1000), 2000);
    b.recordFailure("ip", 3000);
    assert.equal(b.retryAfterMs("ip", 3000), 4000);
    b.recordFailure("ip", 7000);
    assert.equal(b.retryAfterMs("ip", 7000), 5000);
    assert.equal(b.retryAfterMs("other", 7000), 0, "keys are independent");
  });

  it("success clears a key; a quiet period forgets it", () => {
    const b = new FailureBackoff(policy);
    for (let i = 0; i < 3; i++) b.recordFailure("ip", 0);
    b.recordSuccess("ip");
    assert.equal(b.retryAfterMs("ip", 0), 0);
    for (let i = 0; i < 3; i++) b.recordFailure("ip", 0);
    b.recordFailure("ip", 70_000);
    assert.equal(b.retryAfterMs("ip", 70_000), 0, "the old failures were forgotten: this is the first again");
  });

  it("holds at most maxKeys keys, dropping the least recently failed", () => {
    const b = new FailureBackoff(policy, 2);
    for (const key of ["a", "b", "c"]) for (let i = 0; i < 3; i++) b.recordFailure(key, 0);
    assert.equal(b.retryAfterMs("a", 0), 0);
    assert.equal(b.retryAfterMs("b", 0), 1000);
    assert.equal(b.retryAfterMs("c", 0), 1000);
  });
});
