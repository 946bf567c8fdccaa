// Client registration (both backends): RFC 7591 DCR of public clients (validated, bounded,
// rate-limited) and Client ID Metadata Documents served by a local server (loopback http is
// allowed only under the explicit test/dev option).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { validateCimd } from "../../src/oauth/cimd.js";
import type { ResolvedAddress } from "../../src/oauth/pinned-fetch.js";
import { testBackends } from "../helpers/backends.js";
import {
  authorizeUrl,
  codeFor,
  exchange,
  mcpStatus,
  type OAuthWorld,
  openOAuthWorld,
  PUBLIC_URL,
  REDIRECT,
} from "./oauth-world.js";

/** A loopback server answering each path with a scripted response. */
async function documentServer(
  routes: Record<string, (url: string) => { status: number; body: string; headers?: Record<string, string> }>,
) {
  let base = "";
  const server: Server = createServer((req, res) => {
    const route = routes[req.url ?? ""];
    const answer = route ? route(`${base}${req.url}`) : { status: 404, body: "" };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const doc = (clientId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: clientId, client_name: "Doc Client", redirect_uris: [REDIRECT], ...extra });

for (const backend of testBackends()) {
  describe(`OAuth client registration (${backend.name})`, () => {
    let world: OAuthWorld;
    let docs: Awaited<ReturnType<typeof documentServer>>;
    before(async () => {
      world = await openOAuthWorld(backend, {
        oauth: { allowLoopbackClientIds: true, registrationsPerMinute: { perKey: 25, total: 25 } },
      });
      docs = await documentServer({
        "/client.json": (url) => ({ status: 200, body: doc(url) }),
        "/mismatch.json": () => ({ status: 200, body: doc("https://someone.else/client.json") }),
        "/secret.json": (url) => ({ status: 200, body: doc(url, { client_secret: "x" }) }),
        "/redirect.json": () => ({
          status: 302,
          body: "",
          headers: { location: "https://example.com/x.json" },
        }),
        "/huge.json": (url) => ({ status: 200, body: doc(url, { pad: "x".repeat(20_000) }) }),
        "/error.json": (url) => ({ status: 500, body: doc(url) }),
        "/not-json.json": () => ({ status: 200, body: "<html>admin console</html>" }),
        "/evil-redirect.json": (url) => ({
          status: 200,
          body: doc(url, { redirect_uris: ["https://evil.example/cb"] }),
        }),
      });
    });
    after(async () => {
      await docs.close();
      await world.cleanup();
    });

    const register = (body: unknown, raw?: string) =>
      world.fetch(`${PUBLIC_URL}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: raw ?? JSON.stringify(body),
      });

    it("registers a public client and answers its metadata (no secret)", async () => {
      const res = await register({
        client_name: "My Agent",
        redirect_uris: [REDIRECT, "https://app.example/cb", "cursor://anysphere.cursor-mcp/oauth/callback"],
        token_endpoint_auth_method: "client_secret_basic",
      });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const body = (await res.json()) as Record<string, unknown>;
      assert.match(body.client_id as string, /^pdpp_cl_[A-Za-z0-9_-]{22}$/);
      assert.equal(body.token_endpoint_auth_method, "none");
      assert.equal(body.client_secret, undefined);
      assert.equal(body.client_name, "My Agent");
    });

    it("strips Unicode format controls (bidi overrides, zero-width) from a client's name", async () => {
      const res = await register({
        client_name: "Claude \u202Egnp.exe\u202C\u2066 \u200Bhelper\u2069\u2028x",
        redirect_uris: [REDIRECT],
      });
      assert.equal(res.status, 201);
      assert.equal(((await res.json()) as { client_name: string }).client_name, "Claude gnp.exe helperx");
      const blank = await register({ client_name: "\u202E\u200F", redirect_uris: [REDIRECT] });
      assert.equal(((await blank.json()) as { client_name: string }).client_name, "127.0.0.1:33418");
    });

    it("refuses invalid or oversized registrations with RFC 7591 errors", async () => {
      const cases: [unknown, string][] = [
        [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["data:text/html,hi"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["file:///etc/passwd"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["search-ms:query=x&crumb=location:\\\\evil\\s"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["ms-msdt:/id PCWDiagnostic"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["shell:startup"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["myapp:/cb"] }, "invalid_redirect_uri"],
        [{ redirect_uris: [`${REDIRECT}#f`] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["https://user:pw@app.example/cb"] }, "invalid_redirect_uri"],
        [{ redirect_uris: [] }, "invalid_redirect_uri"],
        [
          { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
          "invalid_redirect_uri",
        ],
        [{ redirect_uris: [`https://a.example/${"x".repeat(2100)}`] }, "invalid_redirect_uri"],
        [{ client_name: "x" }, "invalid_redirect_uri"],
        [{ redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
        [{ redirect_uris: [REDIRECT], response_types: ["token"] }, "invalid_client_metadata"],
        [[REDIRECT], "invalid_client_metadata"],
      ];
      for (const [body, error] of cases) {
        const res = await register(body);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(
          ((await res.json()) as { error: string }).error,
          error,
          JSON.stringify(body).slice(0, 80),
        );
      }
      const notJson = await register(null, "{nope");
      assert.equal(((await notJson.json()) as { error: string }).error, "invalid_client_metadata");
      const huge = await register({ redirect_uris: [REDIRECT], client_name: "x".repeat(20_000) });
      assert.equal(huge.status, 413);
      assert.equal(((await huge.json()) as { error: string }).error, "invalid_client_metadata");
    });

    it("rate-limits registration", async () => {
      let limited = 0;
      for (let i = 0; i < 30; i++) {
        const res = await register({ redirect_uris: [REDIRECT] });
        if (res.status === 429) {
          limited++;
          assert.equal(((await res.json()) as { error: string }).error, "too_many_requests");
        } else await res.arrayBuffer();
      }
      assert.ok(limited >= 5, `limited ${limited}`);
    });

    it("runs the flow with a Client ID Metadata Document URL as client_id", async () => {
      const clientId = `${docs.base}/client.json`;
      const { code } = await codeFor(world, clientId);
      const tokens = await exchange(world, clientId, code);
      assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
      assert.equal(await mcpStatus(world, tokens.json.access_token), 200);
    });

    it("answers every failure to fetch a document with one and the same page (no status oracle)", async () => {
      const closed = await documentServer({});
      await closed.close();
      const pages = new Set<string>();
      for (const clientId of [
        `${docs.base}/missing.json`,
        `${docs.base}/redirect.json`,
        `${docs.base}/huge.json`,
        `${docs.base}/error.json`,
        `${docs.base}/not-json.json`,
        `${closed.base}/client.json`,
        "https://10.0.0.1/client.json",
        "https://[fd00::1]/client.json",
      ]) {
        const res = await world.fetch(authorizeUrl(clientId), { redirect: "manual" });
        assert.equal(res.status, 400, clientId);
        pages.add(await res.text());
      }
      assert.equal(pages.size, 1, [...pages].join("\n"));
      assert.match([...pages][0], /could not be fetched/);
    });

    it("refuses unusable metadata documents on a plain page", async () => {
      for (const path of [
        "/mismatch.json",
        "/secret.json",
        "/redirect.json",
        "/huge.json",
        "/missing.json",
      ]) {
        const res = await world.fetch(authorizeUrl(`${docs.base}${path}`), { redirect: "manual" });
        assert.equal(res.status, 400, path);
        assert.equal(res.headers.get("location"), null, path);
      }
      const res = await world.fetch(
        authorizeUrl(`${docs.base}/evil-redirect.json`, { redirect_uri: "https://evil.example/cb" }),
        { redirect: "manual" },
      );
      assert.equal(res.status, 302, "its own redirect URI is fine");
      const wrong = await world.fetch(authorizeUrl(`${docs.base}/evil-redirect.json`), {
        redirect: "manual",
      });
      assert.equal(wrong.status, 400, "but not one it did not list");
    });
  });
}

describe("Client ID Metadata Document fetch is pinned to the checked address", () => {
  it("connects to the address the check saw, and refuses a host with any private address", async () => {
    let port = 0;
    const hits: string[] = [];
    const docs = await documentServer({
      "/pinned.json": () => {
        hits.push("pinned");
        return { status: 200, body: doc(`http://localhost:${port}/pinned.json`) };
      },
      "/mixed.json": () => {
        hits.push("mixed");
        return { status: 200, body: doc(`http://localhost:${port}/mixed.json`) };
      },
    });
    port = Number(new URL(docs.base).port);
    // A rebinding resolver: each answer is used once; every later lookup points at 127.0.0.2, where
    // nothing listens, so a second resolution between check and connection would fail the fetch.
    const answers: ResolvedAddress[][] = [];
    let lookups = 0;
    const world = await openOAuthWorld(testBackends()[0], {
      oauth: {
        allowLoopbackClientIds: true,
        cimdResolve: async () => {
          lookups++;
          return answers.shift() ?? [{ address: "127.0.0.2", family: 4 }];
        },
      },
    });
    try {
      answers.push([{ address: "127.0.0.1", family: 4 }]);
      const pinned = await world.fetch(authorizeUrl(`http://localhost:${port}/pinned.json`), {
        redirect: "manual",
      });
      assert.equal(pinned.status, 302, await pinned.text());
      assert.equal(lookups, 1, "resolved once, then connected to that very address");

      answers.push([
        { address: "127.0.0.1", family: 4 },
        { address: "10.1.2.3", family: 4 },
      ]);
      const mixed = await world.fetch(authorizeUrl(`http://localhost:${port}/mixed.json`), {
        redirect: "manual",
      });
      assert.equal(mixed.status, 400);
      assert.match(await mixed.text(), /could not be fetched/);
      assert.deepEqual(hits, ["pinned"], "a host with any refused address is never contacted");
    } finally {
      await world.cleanup();
      await docs.close();
    }
  });
});

describe("Client ID Metadata Document rules", () => {
  it("refuses http client ids without the dev option, private addresses and malformed URLs", async () => {
    const world = await openOAuthWorld(testBackends()[0]);
    try {
      for (const clientId of [
        "http://127.0.0.1:1/client.json",
        "https://127.0.0.1/client.json",
        "https://10.0.0.1/client.json",
        "https://[::1]/client.json",
        "https://example.com/",
        "https://example.com/a/../client.json",
        "https://user@example.com/client.json",
      ]) {
        const res = await world.fetch(authorizeUrl(clientId), { redirect: "manual" });
        assert.equal(res.status, 400, clientId);
        assert.equal(res.headers.get("location"), null, clientId);
      }
    } finally {
      await world.cleanup();
    }
  });

  it("validates a document: own client_id, public client, safe redirect URIs", () => {
    const id = "https://app.example/client.json";
    assert.equal(validateCimd(id, JSON.parse(doc(id))).client_name, "Doc Client");
    assert.throws(() => validateCimd(id, JSON.parse(doc("https://other.example/c.json"))));
    assert.throws(() =>
      validateCimd(id, JSON.parse(doc(id, { token_endpoint_auth_method: "client_secret_post" }))),
    );
    assert.throws(() => validateCimd(id, JSON.parse(doc(id, { redirect_uris: ["javascript:alert(1)"] }))));
    assert.throws(() => validateCimd(id, []));
    const named = validateCimd(id, JSON.parse(doc(id, { client_name: "Evil\u0000\u001b[31m" })));
    assert.equal(named.client_name, "Evil[31m");
  });
});
