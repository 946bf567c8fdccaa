// Credentials (40-quality.md, reliability 5): tokens stored only as SHA-256 hashes (the store's
// bytes are scanned), the owner secret file is 0600, revocation and expiry bite on the very next
// request, /mcp refuses the owner token, and no token ever appears in an answer or the access log.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { homePaths } from "../../src/config/home.js";
import { ensureOwnerToken } from "../../src/config/owner-token.js";
import { hashToken, newGrantId, newToken } from "../../src/core/ids.js";
import { assertTypedAnswer } from "./fixtures/envelope.js";
import { type HttpAnswer, openHarness } from "./fixtures/harness.js";
import { allNotesGrant, seedNotes } from "./fixtures/notes-dataset.js";
import { scannableBackends } from "./fixtures/storage-scan.js";

const READS = (conn: string) => [
  "/v1/token",
  "/v1/schema",
  "/v1/streams/notes/records?limit=2",
  `/v1/streams/notes/records/n-0-1?connection_id=${conn}`,
  `/v1/streams/notes/records/n-0-1/field-window?field=body&connection_id=${conn}`,
  "/v1/streams/notes/aggregate?metric=count",
  "/v1/search?q=apple",
];

test("the owner token file is created 0600 and holds an owner token", () => {
  const home = mkdtempSync(join(tmpdir(), "pdpp-home-"));
  try {
    const { token, created } = ensureOwnerToken(home);
    assert.equal(created, true);
    assert.match(token, /^pdpp_ot_[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(homePaths(home).ownerToken).mode & 0o777, 0o600);
    assert.equal(ensureOwnerToken(home).token, token);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

for (const backend of scannableBackends()) {
  test(`credentials on ${backend.name}: hashes only, revocation and expiry on the next request, no echo`, async () => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      const [conn] = await seedNotes(h, 5);
      const answers: HttpAnswer[] = [];
      const call = async (
        path: string,
        token: string | null,
        options: { method?: string; body?: string } = {},
      ) => {
        const answer = await h.request(path, {
          token,
          ...options,
          headers: { "content-type": "application/json" },
        });
        answers.push(answer);
        return answer;
      };
      const revoked = await h.createGrant(allNotesGrant());
      const revokedInStore = await h.createGrant(allNotesGrant());
      // Long enough that a loaded machine still reads with it before it expires (the wait below only
      // sleeps what is left of it once the other checks are done).
      const expiresAt = new Date(Date.now() + 8000).toISOString();
      const expiring = await h.createGrant(allNotesGrant({ expires_at: expiresAt }));
      for (const path of READS(conn)) assert.equal((await call(path, expiring.token)).status, 200, path);
      answers.push(revoked.answer, revokedInStore.answer, expiring.answer);
      const tokens = [h.ownerToken, revoked.token, revokedInStore.token, expiring.token];

      for (const grant of [revoked, revokedInStore]) {
        for (const path of READS(conn)) assert.equal((await call(path, grant.token)).status, 200, path);
      }
      // Tokens in places they do not belong: wrong scheme, query string, truncated, extended.
      for (const t of tokens) {
        assert.equal((await call(`/v1/schema?access_token=${t}`, revoked.token)).status, 400);
        assert.equal((await call("/v1/schema", `${t}x`)).status, 401);
        assert.equal((await call("/v1/schema", t.slice(0, -2))).status, 401);
      }

      assert.equal((await h.revokeGrant(revoked.grantId)).status, 200);
      for (const path of READS(conn)) {
        const answer = await call(path, revoked.token);
        assert.equal(answer.status, 403, `${path} after revoke → ${answer.status}`);
        assert.equal(answer.json.error.code, "grant_revoked");
      }
      // Revoked behind the RS's back (another process): still refused on the very next request.
      assert.equal(await opened.store.revokeGrant(revokedInStore.grantId, new Date().toISOString()), true);
      for (const path of READS(conn)) {
        assert.equal((await call(path, revokedInStore.token)).json?.error?.code, "grant_revoked", path);
      }

      const wait = Date.parse(expiresAt) - Date.now() + 50;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (const path of READS(conn)) {
        const answer = await call(path, expiring.token);
        assert.equal(answer.status, 401, `${path} after expiry → ${answer.status}`);
        assert.equal(answer.json.error.code, "token_expired");
      }
      const pastToken = newToken("client");
      await opened.store.createGrant({
        ...(allNotesGrant() as { client_name: string; purpose: string }),
        streams: [{ stream: "notes", connector_key: "notes", connections: "all", fields: "all" }],
        grant_id: newGrantId(),
        created_at: "2020-01-01T00:00:00.000Z",
        expires_at: "2020-01-02T00:00:00.000Z",
        revoked_at: null,
        token_hash: hashToken(pastToken),
      });
      tokens.push(pastToken);
      assert.equal((await call("/v1/search?q=apple", pastToken)).json?.error?.code, "token_expired");

      const mcpOwner = await call("/mcp", h.ownerToken, { method: "POST", body: "{}" });
      assert.equal(mcpOwner.status, 403);
      assert.equal(mcpOwner.json.error.code, "owner_token_refused");
      const mcpNone = await call("/mcp", null, { method: "POST", body: "{}" });
      assert.equal(mcpNone.status, 401);
      assert.match(mcpNone.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata="/);

      answers.push(await h.request("/v1/owner/access-log?limit=1000"), await h.request("/v1/owner/grants"));
      for (const answer of answers) {
        // The creation answers carry their own token once, by design; nothing else may.
        const allowed = [revoked, revokedInStore, expiring].find((g) => g.answer === answer)?.token;
        const others = tokens.filter((t) => t !== allowed);
        assertTypedAnswer(answer, "credentials", others);
      }
      const log = JSON.stringify(await opened.store.listAccessLog({ limit: 10_000 }));
      assert.ok(log.length > 100, "the access log is empty; nothing was checked");
      for (const t of tokens) assert.ok(!log.includes(t), "a token is in the access log");

      const live = await opened.dump();
      await opened.store.close();
      const bytes = `${live}\n${await opened.dump()}`;
      for (const t of tokens) {
        assert.ok(!bytes.includes(t), "a raw token is stored");
        assert.ok(!bytes.includes(t.slice(8)), "a token's secret part is stored");
      }
      assert.ok(
        bytes.includes(hashToken(revoked.token)),
        "the scan did not find the token hash; it scanned the wrong bytes",
      );
    } finally {
      await opened.cleanup();
    }
  });
}
