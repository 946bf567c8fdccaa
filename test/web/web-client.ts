// Test plumbing for the owner web pages: a tiny cookie-keeping browser over app.request (no socket),
// and helpers to read a form's CSRF token and set the owner passphrase cheaply.
import type { Hono } from "hono";
import type { RsEnv } from "../../src/rs/env.js";
import type { Store } from "../../src/store/store.js";
import { hashPassphrase } from "../../src/web/passphrase.js";

export const PASSPHRASE = "correct horse battery staple";

/** A cheap hash (scrypt N = 2^10) so tests do not spend a second per sign-in; same code path. */
export async function setTestPassphrase(store: Store, passphrase = PASSPHRASE): Promise<void> {
  await store.setOwnerPassphraseHash(
    await hashPassphrase(passphrase, { logN: 10, r: 8, p: 1 }),
    new Date().toISOString(),
  );
}

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  readonly setCookies: string[] = [];

  constructor(
    private readonly app: Hono<RsEnv>,
    private readonly origin = "http://127.0.0.1:7662",
    /** The TCP peer address the app sees (as @hono/node-server passes it); none by default. */
    private readonly peer?: string,
  ) {}

  async request(
    path: string,
    init: { method?: string; form?: [string, string][]; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const env = this.peer ? { incoming: { socket: { remoteAddress: this.peer } } } : undefined;
    const res = await this.app.request(
      `${this.origin}${path}`,
      { method: init.method ?? (body ? "POST" : "GET"), headers, body },
      env,
    );
    for (const cookie of res.headers.getSetCookie()) {
      this.setCookies.push(cookie);
      const [pair] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/max-age=0/i.test(cookie) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get("location"),
    };
  }

  get(path: string, headers?: Record<string, string>): Promise<Page> {
    return this.request(path, { headers });
  }

  post(path: string, form: [string, string][], headers?: Record<string, string>): Promise<Page> {
    return this.request(path, { method: "POST", form, headers });
  }

  /** Sign in with the passphrase through the real forms; returns the console page's CSRF token. */
  async signIn(passphrase = PASSPHRASE): Promise<string> {
    const form = await this.get("/signin");
    const res = await this.post("/signin", [
      ["_csrf", csrfOf(form.text)],
      ["passphrase", passphrase],
      ["next", "/console"],
    ]);
    if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 200)}`);
    return csrfOf((await this.get("/console")).text);
  }
}

export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF token in page: ${html.slice(0, 300)}`);
  return m[1];
}

/** The page with every per-response random value (nonces, CSRF tokens) blanked, to compare pages. */
export function normalised(html: string): string {
  return html
    .replace(/nonce="[^"]+"/g, 'nonce=""')
    .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value=""');
}
