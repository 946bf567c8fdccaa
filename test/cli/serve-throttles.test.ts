// Throttles and rate limits are one per server, not one per process: `pdpp serve --workers 2`
// refuses the 21st registration of a minute and locks an address after 5 bad sign-in links, however
// the requests are spread over the workers; two apps on one database (both backends) share them too.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createApp } from "../../src/rs/app.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";
import { BIN, cliEnv, REPO_ROOT, runPdpp, tempDir } from "./run-cli.js";

const REGISTRATION = JSON.stringify({ client_name: "t", redirect_uris: ["http://127.0.0.1:9/cb"] });

async function waitForUrl(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /url: +(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
}

/** One sign-in link attempt over real HTTP (pre-session cookie, CSRF token, then the post). */
async function badLink(url: string): Promise<number> {
  const page = await fetch(`${url}/signin/link?token=${"A".repeat(43)}`);
  const cookie = (page.headers.getSetCookie()[0] ?? "").split(";")[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const res = await fetch(`${url}/signin/link`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, token: "B".repeat(43) }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("throttles shared across processes", () => {
  it("pdpp serve --workers 2: one registration limit and one sign-in lock for the whole server", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      assert.equal((await runPdpp(["init"], { home })).code, 0);
      const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--workers", "2"], {
        cwd: REPO_ROOT,
        env: cliEnv(home),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        const url = await waitForUrl(child);
        const statuses: number[] = [];
        for (let i = 0; i < 21; i++) {
          const res = await fetch(`${url}/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: REGISTRATION,
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        assert.deepEqual(statuses, [...Array(20).fill(201), 429]);
        const links: number[] = [];
        for (let i = 0; i < 5; i++) links.push(await badLink(url));
        assert.deepEqual(links, [401, 401, 401, 401, 429]);
      } finally {
        child.kill("SIGTERM");
      }
      assert.equal(await exited, 0);
    } finally {
      tmp.cleanup();
    }
  });

  for (const name of ["sqlite", "postgres"] as const) {
    const url = pgTestUrl();
    const skip = name === "postgres" && !url ? "PDPP_TEST_PG_URL is not set" : false;
    it(`two servers on one ${name} database count registrations together`, { skip }, async () => {
      const tmp = tempDir();
      const schema = newTestSchemaName();
      const open = (): Promise<Store> =>
        name === "sqlite"
          ? openSqliteStore({ path: join(tmp.dir, "pdpp.db") })
          : openPostgresStore({ url: url as string, schema });
      const first = await open();
      const second = await open();
      try {
        const apps = [first, second].map((store) =>
          createApp({
            store,
            publicUrl: "http://127.0.0.1:7662",
            oauth: { registrationsPerMinute: { perKey: 3, total: 100 } },
          }),
        );
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await apps[i % 2].request("http://127.0.0.1:7662/register", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: REGISTRATION,
          });
          statuses.push(res.status);
        }
        assert.deepEqual(statuses, [201, 201, 201, 429]);
      } finally {
        await first.close();
        await second.close();
        if (name === "postgres") await dropTestSchema(url as string, schema);
        tmp.cleanup();
      }
    });
  }
});
