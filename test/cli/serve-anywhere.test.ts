// `pdpp serve` started from an unrelated folder (as `npm link` or the absolute bin path of the README
// and the setup output start it): the owner signs in with a one-time link and every console page
// renders. That folder holds a foreign tsconfig.json, which once made the sources' JSX resolve to
// `React` (500 `React is not defined` on every owner page): the compiled build must not care, and
// the contributors' source path (PDPP_DEV=1) must use the package's own tsconfig.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { BIN, cliEnv, runPdpp, tempDir, waitForOutput } from "./run-cli.js";

/** A browser in miniature: keeps cookies, never follows redirects. */
class CookieFetch {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly origin: string) {}

  async request(path: string, form?: Record<string, string>): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    };
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(`${this.origin}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: "manual",
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair.indexOf("=");
      if (/max-age=0/i.test(cookie)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return { status: response.status, text: await response.text() };
  }
}

function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(m, `no CSRF token in: ${html.slice(0, 300)}`);
  return m[1];
}

async function signInFromElsewhere(env: Record<string, string>): Promise<void> {
  const tmp = tempDir();
  const home = join(tmp.dir, "home");
  const elsewhere = join(tmp.dir, "elsewhere");
  mkdirSync(elsewhere);
  // Classic JSX: what a folder of some other project says.
  writeFileSync(join(elsewhere, "tsconfig.json"), '{"compilerOptions":{"jsx":"react"}}\n');
  try {
    assert.equal((await runPdpp(["init"], { home, cwd: elsewhere, env })).code, 0);
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
      cwd: elsewhere,
      env: cliEnv(home, env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const [, url] = await waitForOutput(child, /^url: +(http:\/\/127\.0\.0\.1:\d+)\n/m);
      const link = await runPdpp(["console", "--url", url], { home, cwd: elsewhere, env });
      assert.equal(link.code, 0, link.stderr);
      const token = /\/signin\/link\?token=([A-Za-z0-9_-]{43})$/m.exec(link.stdout)?.[1];
      assert.ok(token, link.stdout);

      const browser = new CookieFetch(url);
      const signin = await browser.request("/signin");
      assert.equal(signin.status, 200, signin.text.slice(0, 300));
      const page = await browser.request(`/signin/link?token=${token}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      const signedIn = await browser.request("/signin/link", { _csrf: csrfOf(page.text), token });
      assert.equal(signedIn.status, 303, signedIn.text.slice(0, 300));
      for (const [path, heading] of [
        ["/console", "<h1>Grants</h1>"],
        ["/console/connections", "<h1>Connections</h1>"],
        ["/console/access-log", "<h1>Access log</h1>"],
      ]) {
        const console = await browser.request(path);
        assert.equal(console.status, 200, `${path}: ${console.text.slice(0, 300)}`);
        assert.ok(console.text.includes(heading), `${path}: ${console.text.slice(0, 300)}`);
      }
    } finally {
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    }
  } finally {
    tmp.cleanup();
  }
}

describe("pdpp serve from another folder", () => {
  it("runs the compiled build: the owner signs in and the console pages render", async () => {
    await signInFromElsewhere({});
  });

  it("PDPP_DEV=1 runs the sources with the package's tsconfig: the same pages render", async () => {
    await signInFromElsewhere({ PDPP_DEV: "1" });
  });
});
