// The console and consent pages over HTTP (in-process): revoke with CSRF, the access log filter,
// record counts, and the consent grant editor against a recording authorization-server double.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConsentBackend, GrantInput, PendingAuthorizationView } from "../../src/web/consent-backend.js";
import { testBackends } from "../helpers/backends.js";
import { openFixture } from "../rs/harness.js";
import { csrfOf, setTestPassphrase, WebClient } from "./web-client.js";

const PENDING: PendingAuthorizationView = {
  id: "pend_abc123",
  clientId: "https://client.example/meta.json",
  clientName: "Example Agent",
  redirectUri: "http://127.0.0.1:33333/callback",
  redirectHost: "127.0.0.1:33333",
  requestedScope: null,
  resource: "http://127.0.0.1:7662/mcp",
  expiresAt: "2999-01-01T00:00:00.000Z",
};

function recordingBackend(pending: PendingAuthorizationView) {
  const calls: { approved: GrantInput[]; denied: string[] } = { approved: [], denied: [] };
  const backend: ConsentBackend = {
    get: async (_deps, id) => (id === pending.id ? pending : null),
    approve: async (_deps, id, grant) => {
      calls.approved.push(grant);
      return { redirectTo: `${pending.redirectUri}?code=c_${id}&state=s` };
    },
    deny: async (_deps, id) => {
      calls.denied.push(id);
      return { redirectTo: `${pending.redirectUri}?error=access_denied&state=s` };
    },
  };
  return { backend, calls };
}

for (const backend of testBackends()) {
  describe(`owner console and consent (${backend.name})`, () => {
    it("revokes a grant with the button's CSRF token and refuses a forged revoke", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        const { token, grant_id } = await fx.grant([
          { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: ["subject"] },
        ]);
        assert.equal((await fx.call("/v1/streams/messages/records", { token })).status, 200);
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        const csrf = await web.signIn();
        const page = await web.get("/console");
        assert.match(page.text, new RegExp(grant_id));
        assert.match(page.text, /mail:messages \(1 connection; subject\)/);
        assert.doesNotMatch(page.text, /<td>never<br\/>/, "last use comes from the access log");

        const forged = await web.post(`/console/grants/${grant_id}/revoke`, [["_csrf", "forged"]]);
        assert.equal(forged.status, 403);
        const missing = await web.post(`/console/grants/${grant_id}/revoke`, []);
        assert.equal(missing.status, 403);
        const other = new WebClient(fx.app);
        const otherCsrf = await other.signIn();
        assert.equal(
          (await web.post(`/console/grants/${grant_id}/revoke`, [["_csrf", otherCsrf]])).status,
          403,
        );
        assert.equal((await fx.store.getGrant(grant_id))?.revoked_at, null);
        assert.equal((await fx.call("/v1/streams/messages/records", { token })).status, 200);

        const revoked = await web.post(`/console/grants/${grant_id}/revoke`, [["_csrf", csrf]]);
        assert.equal(revoked.status, 303);
        assert.equal(revoked.location, `/console?revoked=${grant_id}`);
        assert.notEqual((await fx.store.getGrant(grant_id))?.revoked_at, null);
        assert.equal((await fx.call("/v1/streams/messages/records", { token })).status, 403);
      } finally {
        await cleanup();
      }
    });

    it("filters the access log by grant and counts records per connection and stream", async () => {
      const { fx, cleanup } = await openFixture(backend);
      try {
        const a = await fx.grant([
          { stream: "messages", connector_key: "chat", connections: "all", fields: "all" },
        ]);
        const b = await fx.grant([
          { stream: "contacts", connector_key: "mail", connections: "all", fields: "all" },
        ]);
        assert.equal((await fx.call("/v1/streams/messages/records", { token: a.token })).status, 200);
        assert.equal((await fx.call("/v1/streams/contacts/records", { token: b.token })).status, 200);
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        const all = await web.get("/console/access-log");
        assert.equal(all.status, 200);
        assert.match(all.text, new RegExp(`test-agent</bdi> \\(${a.grant_id}\\)</td>`));
        assert.match(all.text, new RegExp(`test-agent</bdi> \\(${b.grant_id}\\)</td>`));
        const onlyA = await web.get(`/console/access-log?grant=${a.grant_id}`);
        assert.match(onlyA.text, new RegExp(`test-agent</bdi> \\(${a.grant_id}\\)</td>`));
        assert.doesNotMatch(onlyA.text, new RegExp(`test-agent</bdi> \\(${b.grant_id}\\)</td>`));
        const connections = await web.get("/console/connections");
        assert.match(connections.text, /Home mail[\s\S]*mail:messages<\/td><td>9</);
        assert.match(connections.text, /Chat[\s\S]*chat:messages<\/td><td>6</);
        assert.match(connections.text, /contacts<\/td><td>1</);
      } finally {
        await cleanup();
      }
    });

    it("consent: sign in first and come back, then approve exactly the narrowed grant", async () => {
      const { backend: oauth, calls } = recordingBackend(PENDING);
      const { fx, cleanup } = await openFixture(backend, { ownerWeb: { consent: oauth } });
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        const first = await web.get(`/consent/${PENDING.id}`);
        assert.equal(first.status, 303);
        assert.equal(first.location, `/signin?next=%2Fconsent%2F${PENDING.id}`);
        const signin = await web.get(first.location as string);
        const back = await web.post("/signin", [
          ["_csrf", csrfOf(signin.text)],
          ["passphrase", "correct horse battery staple"],
          ["next", `/consent/${PENDING.id}`],
        ]);
        assert.equal(back.location, `/consent/${PENDING.id}`);

        const page = await web.get(`/consent/${PENDING.id}`);
        assert.equal(page.status, 200);
        assert.match(page.text, /Example Agent/);
        assert.match(page.text, /127\.0\.0\.1:33333/);
        const csp = page.headers.get("content-security-policy") ?? "";
        assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:33333;/);
        assert.match(csp, /frame-ancestors 'none'/);
        // Prefilled with everything: every stream ticked, 90 days.
        assert.equal((page.text.match(/name="stream" value="[^"]+" checked/g) ?? []).length, 3);
        assert.match(page.text, /<option value="90" selected/);

        const csrf = csrfOf(page.text);
        assert.equal((await web.post(`/consent/${PENDING.id}`, [["decision", "approve"]])).status, 403);
        assert.equal(
          (
            await web.post(`/consent/${PENDING.id}`, [
              ["_csrf", "nope"],
              ["decision", "approve"],
            ])
          ).status,
          403,
        );
        assert.equal(calls.approved.length, 0);

        const empty = await web.post(`/consent/${PENDING.id}`, [
          ["_csrf", csrf],
          ["decision", "approve"],
        ]);
        assert.equal(empty.status, 400);
        assert.match(empty.text, /Pick at least one stream/);

        const approved = await web.post(`/consent/${PENDING.id}`, [
          ["_csrf", csrf],
          ["decision", "approve"],
          ["stream", "mail/messages"],
          ["conn:mail/messages", fx.mailB],
          ["field:mail/messages", "subject"],
          ["field:mail/messages", "from"],
          ["field:mail/messages", "not_a_field"],
          ["since", "2024-03-01"],
          ["until", ""],
          ["expires", "7"],
        ]);
        assert.equal(approved.status, 303);
        assert.equal(approved.location, `${PENDING.redirectUri}?code=c_${PENDING.id}&state=s`);
        assert.equal(calls.approved.length, 1);
        const grant = calls.approved[0];
        assert.equal(grant.client_name, "Example Agent");
        assert.deepEqual(grant.streams, [
          {
            stream: "messages",
            connector_key: "mail",
            connections: [fx.mailB],
            fields: ["subject", "from"],
            time_range: { since: "2024-03-01T00:00:00.000Z", until: null },
          },
        ]);
        assert.ok(grant.expires_at && Date.parse(grant.expires_at) > Date.now() + 6 * 86_400_000);
      } finally {
        await cleanup();
      }
    });

    it("consent: deny answers access_denied; unknown or expired requests are 404; scope prefills", async () => {
      const scoped = { ...PENDING, requestedScope: "chat:messages other" };
      const { backend: oauth, calls } = recordingBackend(scoped);
      const { fx, cleanup } = await openFixture(backend, { ownerWeb: { consent: oauth } });
      try {
        await setTestPassphrase(fx.store);
        const web = new WebClient(fx.app);
        await web.signIn();
        const page = await web.get(`/consent/${PENDING.id}`);
        assert.deepEqual(page.text.match(/name="stream" value="[^"]+" checked/g), [
          'name="stream" value="chat/messages" checked',
        ]);
        const denied = await web.post(`/consent/${PENDING.id}`, [
          ["_csrf", csrfOf(page.text)],
          ["decision", "deny"],
        ]);
        assert.equal(denied.status, 303);
        assert.match(denied.location ?? "", /error=access_denied/);
        assert.deepEqual(calls.denied, [PENDING.id]);
        assert.equal((await web.get("/consent/pend_unknown")).status, 404);
        assert.equal((await web.get("/consent/%2E%2E")).status, 404);
      } finally {
        await cleanup();
      }
    });
  });
}
