// End to end in a real headless Chromium against a real HTTP server: the MCP SDK's OAuth client
// gets 401 → discovery → registration → authorization URL; the owner signs in, narrows the grant to
// one stream and approves; the token sees only that stream; refresh; revoke in the console → 401.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";
import { startServer } from "../../src/server.js";
import { sqliteBackend } from "../helpers/backends.js";
import { call } from "../mcp/helpers.js";
import { MemoryProvider } from "../oauth/oauth-world.js";
import { setupFixture } from "../rs/harness.js";
import { PASSPHRASE, setTestPassphrase } from "./web-client.js";

const CHROMIUM = "/usr/bin/chromium";
const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/**
 * PDPP_SCREENSHOTS=docs rewrites the README's page pictures (docs/signin.png, consent.png,
 * console.png, revoke.png, access-log.png, connections.png, error.png); normal runs write nothing.
 */
const SCREENSHOTS =
  process.env.PDPP_SCREENSHOTS === "docs" ? join(import.meta.dirname, "..", "..", "docs") : null;

async function shoot(page: import("playwright-core").Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

// Under CI the browser is required (.ci/run installs it): a missing one fails, never skips.
const missing = !existsSync(CHROMIUM);
const skip = missing && process.env.CI !== "true" ? `no ${CHROMIUM} (CI installs it)` : false;

/** A loopback "native app" that receives the authorization response. */
async function callbackServer(): Promise<{ url: string; params: Promise<URLSearchParams>; close(): void }> {
  let deliver: (p: URLSearchParams) => void = () => {};
  const params = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
    if (url.pathname === "/callback") deliver(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/callback`, params, close: () => server.close() };
}

describe("owner web in a real Chromium", () => {
  it("OAuth: sign in, narrow to one stream, approve, search sees only it, refresh, revoke in the console → 401", {
    skip,
  }, async () => {
    assert.ok(!missing, `${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
    const opened = await sqliteBackend.open();
    const fx = await setupFixture(opened.store);
    await setTestPassphrase(fx.store);
    const server = await startServer({ store: fx.store, host: "127.0.0.1", port: 0 });
    const callback = await callbackServer();
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    try {
      const mcpUrl = new URL(`${server.url}/mcp`);
      const provider = new MemoryProvider(callback.url);

      // 401 → protected-resource metadata → server metadata → DCR → redirect to /authorize.
      const first = new Client({ name: "chromium-e2e", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
      await assert.rejects(first.connect(transport), UnauthorizedError);
      assert.ok(provider.info, "the client registered itself (DCR)");
      const authorizationUrl = provider.authorizationUrl as URL;
      assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${server.url}/authorize`);

      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      await page.goto(authorizationUrl.href);
      // Not signed in: the consent page sends the owner to sign in first.
      assert.match(page.url(), /\/signin\?next=%2Fconsent%2Fpa_/);
      await shoot(page, "signin");
      await page.fill("#passphrase", PASSPHRASE);
      await page.click("button[type=submit]");
      await page.waitForURL(/\/consent\/pa_/);
      assert.equal(await page.textContent("#client-name"), "Test MCP Client");
      assert.equal(await page.textContent("#redirect-host"), new URL(callback.url).host);
      // Prefilled with everything, fields folded ("all N fields"), later additions off.
      const boxes = page.locator('input[name="stream"]');
      assert.equal(await boxes.count(), 3);
      assert.equal(await page.locator("details.fields[open]").count(), 0);
      assert.equal(await page.locator('input[name="future"]').isChecked(), false);
      const mail = page.locator("#stream-mail-messages");
      assert.equal(await mail.locator(".detail").isVisible(), true);
      assert.equal(await mail.locator("summary .all").isVisible(), true);
      await mail.locator("summary").click();
      await mail.locator('input[value="body"]').setChecked(false);
      assert.equal(await mail.locator("summary .some").isVisible(), true, "the summary says some fields now");
      await mail.locator('input[value="body"]').setChecked(true);
      await mail.locator("summary").click();
      await shoot(page, "consent");
      // The owner narrows it to chat messages only: an unticked stream folds its details away.
      for (let i = 0; i < 3; i++) {
        const box = boxes.nth(i);
        assert.equal(await box.isChecked(), true);
        await box.setChecked((await box.getAttribute("value")) === "chat/messages");
      }
      assert.equal(await mail.locator(".detail").isVisible(), false);
      assert.equal(await mail.locator(".off").isVisible(), true);
      await page.click('button[value="approve"]');
      const answer = await callback.params;
      assert.equal(answer.get("state"), "state-xyz");
      assert.equal(answer.get("iss"), server.url);
      const code = answer.get("code") as string;
      assert.match(code, /^pdpp_ac_/);

      // Token, then the granted stream only.
      await transport.finishAuth(code);
      const connect = async () => {
        const client = new Client({ name: "chromium-e2e", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
        return client;
      };
      const client = await connect();
      const found = await call(client, "search", { query: "quarterly" });
      assert.equal(found.isError, false, found.text);
      const results = found.structured.results as { id: string }[];
      assert.ok(results.length > 0, found.text);
      for (const r of results) assert.match(r.id, new RegExp(`^${fx.chat}/messages:`));
      await client.close();
      // The OAuth access token is no way into the owner pages.
      const withToken = await fetch(`${server.url}/console`, {
        headers: { authorization: `Bearer ${provider.saved?.access_token}` },
        redirect: "manual",
      });
      assert.equal(withToken.status, 401);

      // Refresh: the SDK trades its refresh token for a new pair.
      const before = provider.saved?.access_token;
      assert.equal(await auth(provider, { serverUrl: mcpUrl }), "AUTHORIZED");
      assert.notEqual(provider.saved?.access_token, before);
      const again = await connect();
      assert.equal((await call(again, "search", { query: "budget" })).isError, false);
      await again.close();

      // The console lists the grant; the owner clicks Revoke.
      await page.goto(`${server.url}/console`);
      const grants = await fx.store.listGrants();
      const oauthGrant = grants.find((g) => g.client_name === "Test MCP Client");
      assert.ok(oauthGrant);
      assert.deepEqual(oauthGrant.streams, [
        {
          stream: "messages",
          connector_key: "chat",
          connections: [fx.chat],
          fields: ["id", "conversation_id", "role", "text", "sent_at"],
          time_range: null,
        },
      ]);
      assert.match(
        (await page.textContent(`[id="${oauthGrant.grant_id}"]`)) ?? "",
        /chat:messages \(1 connection; /,
      );
      assert.equal(await page.locator(`[id="${oauthGrant.grant_id}"] svg.chart`).count(), 1);
      await shoot(page, "console");
      await page.goto(`${server.url}/console/access-log`);
      assert.match((await page.textContent("tbody")) ?? "", /mcp:search/);
      await shoot(page, "access-log");
      await page.goto(`${server.url}/console/connections`);
      assert.ok((await page.locator("svg.chart").count()) > 0);
      await shoot(page, "connections");
      await page.goto(`${server.url}/consent/pa_gone`);
      assert.match((await page.textContent("h1")) ?? "", /Authorization request not found/);
      await shoot(page, "error");
      // Revoke asks first, on a page of its own.
      await page.goto(`${server.url}/console`);
      await page.click(`[id="${oauthGrant.grant_id}"] a.danger`);
      await page.waitForURL(/\/console\/grants\/grt_[0-9a-f]+\/revoke$/);
      assert.equal((await fx.store.getGrant(oauthGrant.grant_id))?.revoked_at, null);
      await shoot(page, "revoke");
      await page.click("#confirm-revoke");
      await page.waitForURL(/\/console\?revoked=grt_/);
      assert.match((await page.textContent(`[id="${oauthGrant.grant_id}"]`)) ?? "", /revoked/);

      const res = await fetch(mcpUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.saved?.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(res.status, 401);
      await context.close();
    } finally {
      await browser.close();
      callback.close();
      await server.close();
      await opened.cleanup();
    }
  });

  it("8 streams of 78 fields make a short consent page: fields fold per stream, all by default", {
    skip,
  }, async () => {
    assert.ok(!missing, `${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
    const opened = await sqliteBackend.open();
    const fx = await setupFixture(opened.store);
    await setTestPassphrase(fx.store);
    const server = await startServer({ store: fx.store, host: "127.0.0.1", port: 0 });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    try {
      const owner = { authorization: `Bearer ${fx.owner}`, "content-type": "application/json" };
      const properties = Object.fromEntries(
        Array.from({ length: 78 }, (_, i) => [`field_${i}`, { type: "string" }]),
      );
      const wide = {
        connector_key: "wide",
        display_name: "Wide",
        version: "1",
        streams: Array.from({ length: 8 }, (_, i) => ({
          name: `stream_${i}`,
          primary_key: ["field_0"],
          schema: { type: "object", properties },
        })),
      };
      const posted = await fetch(`${server.url}/v1/owner/connectors`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify(wide),
      });
      assert.equal(posted.status, 200, await posted.text());
      const conn = await fetch(`${server.url}/v1/owner/connections`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({ connector_key: "wide", display_name: "Wide export" }),
      });
      assert.equal(conn.status, 201);
      const registered = await fetch(`${server.url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Wide Agent", redirect_uris: ["http://127.0.0.1:9/cb"] }),
      });
      const { client_id } = (await registered.json()) as { client_id: string };
      const authorize = new URL(`${server.url}/authorize`);
      for (const [k, v] of Object.entries({
        client_id,
        redirect_uri: "http://127.0.0.1:9/cb",
        response_type: "code",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        state: "s",
      }))
        authorize.searchParams.set(k, v);
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      await page.goto(authorize.href);
      await page.fill("#passphrase", PASSPHRASE);
      await page.click("button[type=submit]");
      await page.waitForURL(/\/consent\/pa_/);
      assert.equal(await page.locator('input[name="stream"]').count(), 11);
      assert.equal(await page.locator('input[name^="field:wide/"]').count(), 8 * 78);
      const folded = await page.evaluate<number>("document.documentElement.scrollHeight");
      for (const d of await page.locator("details.fields").all()) await d.locator("summary").click();
      const unfolded = await page.evaluate<number>("document.documentElement.scrollHeight");
      // At 1100 px wide, 11 streams (8 of them 78 fields wide, 624 fields) fold to 1,647 px: less
      // than the old page's 1,759 px for 8 streams and 78 fields in all. Unfolded, over twice that.
      assert.ok(folded < 1759, `folded page is ${folded} px`);
      assert.ok(unfolded > 2 * folded, `unfolded ${unfolded} px vs folded ${folded} px`);
      await context.close();
    } finally {
      await browser.close();
      await server.close();
      await opened.cleanup();
    }
  });

  it("the console refuses to be framed, and a cross-site form post is refused", { skip }, async () => {
    assert.ok(!missing, `${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
    const opened = await sqliteBackend.open();
    const fx = await setupFixture(opened.store);
    await setTestPassphrase(fx.store);
    const { grant_id } = await fx.grant([
      { stream: "contacts", connector_key: "mail", connections: "all", fields: "all" },
    ]);
    const server = await startServer({ store: fx.store, host: "127.0.0.1", port: 0 });
    // The attacker's page: another origin on the same host (same site, so the Lax cookie rides along).
    const attacker = createServer((_req, res) => {
      const target = server.url;
      res.writeHead(200, { "content-type": "text/html" }).end(
        `<!DOCTYPE html><iframe id="f" src="${server.url}/console"></iframe>
         <form id="x" method="post" action="${target}/console/grants/${grant_id}/revoke"><input name="_csrf" value="guess"></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/signin`);
      await page.fill("#passphrase", PASSPHRASE);
      await page.click("button[type=submit]");
      await page.waitForURL(/\/console$/);
      const evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
      await page.goto(evil);
      const frame = page.frames().find((f) => f.url().includes("/console"));
      const framedText = frame
        ? await frame.evaluate<string>("document.body ? document.body.innerText : ''").catch(() => "")
        : "";
      assert.doesNotMatch(framedText, /Grants/);
      await page.evaluate("document.getElementById('x').submit()");
      await page.waitForLoadState();
      assert.equal((await fx.store.getGrant(grant_id))?.revoked_at, null);
      await context.close();
    } finally {
      await browser.close();
      attacker.close();
      await server.close();
      await opened.cleanup();
    }
  });
});
