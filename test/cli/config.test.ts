// Home resolution, database choice, 0600 secret files and the credentials file (src/config).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { initHome } from "../../src/cli/commands/init.js";
import { chooseDatabase, readHomeConfig, redactUrl, writeHomeConfig } from "../../src/config/config-file.js";
import { readCredentials, writeCredentials } from "../../src/config/credentials.js";
import { homePaths, resolveHome } from "../../src/config/home.js";
import { ensureOwnerToken, readOwnerToken } from "../../src/config/owner-token.js";
import { PdppError } from "../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "pdpp-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("resolveHome", () => {
  it("prefers the flag, then PDPP_HOME, then ./.pdpp", () => {
    assert.equal(resolveHome("/a/b", { PDPP_HOME: "/c" }), "/a/b");
    assert.equal(resolveHome(undefined, { PDPP_HOME: "/c" }), "/c");
    assert.equal(resolveHome(undefined, {}), resolve(".pdpp"));
    assert.equal(resolveHome("", { PDPP_HOME: "" }), resolve(".pdpp"));
  });
});

describe("chooseDatabase", () => {
  it("takes the flag, then PDPP_DATABASE_URL, then config.json, then sqlite", () => {
    const home = join(dir, "db-choice");
    assert.equal(chooseDatabase(home, { env: {} }), "sqlite");
    const pg = "postgres://u:secret@h:5432/d";
    assert.equal(chooseDatabase(home, { env: { PDPP_DATABASE_URL: pg } }), pg);
    assert.equal(chooseDatabase(home, { flag: "sqlite", env: { PDPP_DATABASE_URL: pg } }), "sqlite");
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home);
    writeHomeConfig(home, { database: "postgresql://h/d" });
    assert.deepEqual(readHomeConfig(home), { database: "postgresql://h/d" });
    assert.equal(chooseDatabase(home, { env: {} }), "postgresql://h/d");
  });

  it("rejects anything but sqlite or a postgres URL, without echoing a password", () => {
    assert.throws(
      () => chooseDatabase(dir, { flag: "mysql://u:pw@h/d", env: {} }),
      (e: unknown) => e instanceof PdppError && e.code === "invalid_request" && !e.message.includes("pw@"),
    );
    assert.equal(redactUrl("postgres://u:pw@h/d"), "postgres://u:***@h/d");
    assert.equal(redactUrl("postgres://h/d"), "postgres://h/d");
  });

  it("reports a broken config.json as a user error", () => {
    const home = join(dir, "broken");
    mkdirSync(home);
    writeFileSync(homePaths(home).config, "{nope");
    assert.throws(
      () => readHomeConfig(home),
      (e: unknown) => e instanceof PdppError && /not valid JSON/.test(e.message),
    );
  });
});

describe("owner token file", () => {
  it("is created once with mode 0600 and kept afterwards", () => {
    const home = join(dir, "owner");
    mkdirSync(home);
    assert.equal(readOwnerToken(home), null);
    const first = ensureOwnerToken(home);
    assert.equal(first.created, true);
    assert.match(first.token, /^pdpp_ot_[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(homePaths(home).ownerToken).mode & 0o777, 0o600);
    const second = ensureOwnerToken(home);
    assert.deepEqual(second, { token: first.token, created: false });
  });
});

describe("credentials file", () => {
  it("round-trips with mode 0600 and refuses owner tokens", () => {
    const path = join(dir, "creds.json");
    writeCredentials(path, { token: "pdpp_ct_abc", store: "/h" });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readCredentials(path), { token: "pdpp_ct_abc", store: "/h" });
    writeFileSync(path, JSON.stringify({ token: "pdpp_ot_abc" }));
    assert.throws(
      () => readCredentials(path),
      (e: unknown) => e instanceof PdppError && /client token/.test(e.message),
    );
    assert.throws(() => readCredentials(join(dir, "missing.json")), /does not exist/);
  });
});

describe("pdpp init", () => {
  it("makes the home owner-only: directory 0700, config.json, owner-token and pdpp.db 0600", async () => {
    const home = join(dir, "init-modes");
    await initHome(home);
    assert.equal(statSync(home).mode & 0o777, 0o700);
    for (const name of ["config.json", "owner-token", "pdpp.db"]) {
      assert.equal(statSync(join(home, name)).mode & 0o777, 0o600, name);
    }
  });

  it("a database it cannot open is one clear error and leaves config.json as it was", async () => {
    const home = join(dir, "init-bad-pg");
    await initHome(home);
    await assert.rejects(
      initHome(home, { databaseUrl: "postgres://pdpp:secret@127.0.0.1:1/pdpp" }),
      (error: unknown) =>
        error instanceof PdppError &&
        /^cannot open Postgres at 127\.0\.0\.1:1\/pdpp: .*ECONNREFUSED.* \(the URL comes from --database, \$PDPP_DATABASE_URL or config\.json\)\.$/.test(
          error.message,
        ) &&
        !error.message.includes("secret"),
    );
    assert.deepEqual(readHomeConfig(home), { database: "sqlite" });
  });
});
