// releaseWhenIdle (src/server-idle.ts): memory is released once per burst of requests, after the last
// one ends, never while one is in flight, never on a server that saw no requests, never after stop.
// Waits poll for the positive case, so a slow machine only makes a test slower, never wrong.
import assert from "node:assert/strict";
import { test } from "node:test";
import { releaseWhenIdle } from "../../src/server-idle.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error("timed out");
    await sleep(10);
  }
}

test("releases once after a burst, and again only after the next burst", async () => {
  let released = 0;
  const idle = releaseWhenIdle({ quietMs: 30, release: () => void released++ });
  try {
    await sleep(100);
    assert.equal(released, 0, "no requests, nothing to release");
    for (let i = 0; i < 5; i++) {
      idle.begin();
      idle.end();
    }
    await until(() => released === 1);
    await sleep(100);
    assert.equal(released, 1, "one release per burst");
    idle.begin();
    idle.end();
    await until(() => released === 2);
  } finally {
    idle.stop();
  }
});

test("never releases while a request is in flight, nor after stop", async () => {
  let released = 0;
  const idle = releaseWhenIdle({ quietMs: 20, release: () => void released++ });
  idle.begin();
  idle.begin();
  idle.end(); // one still in flight
  await sleep(100);
  assert.equal(released, 0);
  idle.end();
  await until(() => released === 1);
  idle.begin();
  idle.end();
  idle.stop();
  await sleep(100);
  assert.equal(released, 1);
});

test("a failing release is swallowed (the server keeps serving)", async () => {
  let calls = 0;
  const idle = releaseWhenIdle({
    quietMs: 10,
    release: () => {
      calls++;
      throw new Error("boom");
    },
  });
  idle.begin();
  idle.end();
  await until(() => calls === 1);
  idle.stop();
});
