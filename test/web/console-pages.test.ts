// The owner pages as a person reads them (both backends): the consent page's labels, counts, folded
// fields, self-declared and isolated client name, and "also later additions" choice (off: the grant
// stores exactly what was shown); the console's revoke confirmation step, charts and favicon.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConsentBackend, GrantInput, PendingAuthorizationView } from "../../src/web/consent-backend.js";
import { testBackends } from "../helpers/backends.js";
import { openFixture } from "../rs/harness.js";
import { csrfOf, setTestPassphrase, WebClient } from "./web-client.js";

const PENDING: PendingAuthorizationView = {
  id: "pend_pages1",
  clientId: "pdpp_cl_AAAAAAAAAAAAAAAAAAAAAA",
  clientName: "Claude \u202Egnp.exe",
  redirectUri: "http://127.0.0.1:33333/callback",
  redirectHost: "127.0.0.1:33333",
  requestedScope: "openid email profile",
  resource: "http://127.0.0.1:7662/mcp",
  expiresAt: "2999-01-01T00:00:00.000Z",
};

function recordingBackend() {
  const approved: GrantInput[] = [];
  const backend: ConsentBackend = {
    get: async (_deps, id) => (id === PENDING.id ? PENDING : null),
    approve: async (_deps, _id, grant) => {
      approved.push(grant);
      return { redirectTo: `${PENDING.redirectUri}?code=c&state=s` };
    },
    deny: async () => ({ redirectTo: `${PENDING.redirectUri}?error=access_denied` }),
  };
  return { backend, approved };
}

/** Every checkbox the page shows ticked, as the browser would post it (no script involved). */
function tickedAsPosted(html: string): [string, string][] {
  const out: [string, string][] = [];
  for (const m of html.matchAll(/<input type="checkbox" name="([^"]+)" value="([^"]+)" checked=""/g))
    out.push([m[1], m[2]]);
  return out;
}

for (const backend of testBackends()) {
  describe(`owner pages (${backend.name})`, () => {
    it("consent: qualified labels, counts, folded fields, a self-declared isolated name, no raw OAuth scope", async () => {
      const { backend: oauth, approved } = recordingBackend();
      const { fx, cleanup } = await openFixture(backend, { ownerWeb: { consent: oauth } });
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        const page = await web.get(`/consent/${PENDING.id}`);
        assert.equal(page.status, 200);
        const html = page.text;
        assert.match(html, /<bdi id="client-name">Claude gnp\.exe<\/bdi> wants to read your data/);
        assert.doesNotMatch(html, /\u202E/);
        assert.match(html, /is the name the app gave itself; pdpp has not verified it/);
        assert.doesNotMatch(html, /openid|email profile/, "OAuth scopes pdpp ignores are not shown");
        const labels = [...html.matchAll(/<span class="label">([^<]+)<\/span>/g)].map((m) => m[1]);
        assert.deepEqual(labels, ["chat:messages", "mail:messages", "mail:contacts"]);
        assert.match(html, /mail:messages<\/span> <span class="count">· 21 records<\/span>/);
        assert.match(html, /Work mail <span class="count">\(12\)<\/span>/);
        assert.match(html, /Home mail <span class="count">\(9\)<\/span>/);
        // Fields folded, all by default; later additions off by default.
        assert.equal((html.match(/<details class="fields">/g) ?? []).length, 3);
        assert.match(html, /<span class="all">all \d+ fields<\/span>/);
        assert.match(html, /<input type="checkbox" name="future" value="yes"\/>/);

        // Approving the page as shown (every box ticked) grants the lists shown, never "all".
        const shown = tickedAsPosted(html);
        const res = await web.post(`/consent/${PENDING.id}`, [
          ["_csrf", csrfOf(html)],
          ["decision", "approve"],
          ["expires", "90"],
          ...shown,
        ]);
        assert.equal(res.status, 303, res.text.slice(0, 300));
        const mail = approved[0].streams.find((s) => s.connector_key === "mail" && s.stream === "messages");
        assert.ok(mail && Array.isArray(mail.connections) && Array.isArray(mail.fields));
        assert.deepEqual([...mail.connections].sort(), [fx.mailA, fx.mailB].sort());
        assert.ok(mail.fields.includes("subject"));
        assert.equal(approved[0].streams.length, 3);
        for (const s of approved[0].streams) {
          assert.notEqual(s.connections, "all");
          assert.notEqual(s.fields, "all");
        }
        // An unticked stream is left out whatever its fields and connections say (no script needed).
        const without = shown.filter(([k, v]) => !(k === "stream" && v === "mail/messages"));
        await web.post(`/consent/${PENDING.id}`, [
          ["_csrf", csrfOf(html)],
          ["decision", "approve"],
          ["future", "yes"],
          ...without,
        ]);
        assert.deepEqual(
          approved[1].streams.map((s) => [`${s.connector_key}:${s.stream}`, s.connections, s.fields]),
          [
            ["chat:messages", "all", "all"],
            ["mail:contacts", "all", "all"],
          ],
        );
      } finally {
        await cleanup();
      }
    });

    it("console: revoke asks first on its own page; reads per day and records over time as SVG; a favicon", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        const all = await fx.grant([
          { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
        ]);
        const some = await fx.grant([
          { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["subject", "from"] },
        ]);
        for (let i = 0; i < 3; i++)
          assert.equal((await fx.call("/v1/streams/messages/records", { token: all.token })).status, 200);
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        const grants = await web.get("/console");
        assert.match(
          grants.text,
          /mail:messages \(all connections, also future ones; all fields, also future ones\)/,
        );
        assert.match(grants.text, /mail:messages \(1 connection; subject, from\)/);
        assert.match(grants.text, /<svg class="chart" role="img" aria-label="3 reads in the last 30 days"/);
        assert.match(grants.text, /<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml"\/>/);
        assert.doesNotMatch(grants.text, /<script/);
        const csp = grants.headers.get("content-security-policy") ?? "";
        assert.match(
          csp,
          /^default-src 'none'; style-src 'nonce-[^']+'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
        );
        // Revoke is a link to a confirmation page, not a one-click form.
        assert.doesNotMatch(grants.text, /<form method="post" action="\/console\/grants\//);
        const confirm = await web.get(`/console/grants/${some.grant_id}/revoke`);
        assert.equal(confirm.status, 200);
        assert.match(confirm.text, /Revoke <bdi>test-agent<\/bdi>\?/);
        assert.match(confirm.text, /mail:messages \(1 connection; subject, from\)/);
        assert.equal(
          (await fx.store.getGrant(some.grant_id))?.revoked_at,
          null,
          "showing the step revokes nothing",
        );
        const done = await web.post(`/console/grants/${some.grant_id}/revoke`, [
          ["_csrf", csrfOf(confirm.text)],
        ]);
        assert.equal(done.status, 303);
        assert.notEqual((await fx.store.getGrant(some.grant_id))?.revoked_at, null);
        assert.equal(
          (await web.get(`/console/grants/${some.grant_id}/revoke`)).status,
          404,
          "already revoked",
        );
        assert.equal((await web.get("/console/grants/grt_0000000000000000/revoke")).status, 404);
        assert.equal((await new WebClient(fx.app).get(`/console/grants/${all.grant_id}/revoke`)).status, 303);

        const connections = await web.get("/console/connections");
        assert.match(
          connections.text,
          /<svg class="chart" role="img" aria-label="mail:messages records per month, 2024-01 to 2024-12"/,
        );
        assert.match(connections.text, /<title>2024-03: 1 records<\/title>/);

        const icon = await fx.app.request("http://127.0.0.1:7662/favicon.svg");
        assert.equal(icon.status, 200);
        assert.equal(icon.headers.get("content-type"), "image/svg+xml");
        assert.match(await icon.text(), /^<svg /);
      } finally {
        await cleanup();
      }
    });
  });
}
