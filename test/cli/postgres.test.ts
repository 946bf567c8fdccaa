// The CLI on Postgres: init --database stores the URL, commands then use it (a schema per run).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { postgresTarget } from "../../src/store/open.js";
import { dropTestSchema, newTestSchemaName, pgTestUrl } from "../helpers/pg.js";
import { runPdpp, tempDir } from "./run-cli.js";

describe("postgresTarget", () => {
  it("takes ?schema= off the URL and leaves everything else", () => {
    assert.deepEqual(postgresTarget("postgres://u:p%40ss@h:5432/db?schema=home_a&sslmode=disable"), {
      url: "postgres://u:p%40ss@h:5432/db?sslmode=disable",
      schema: "home_a",
    });
    assert.deepEqual(postgresTarget("postgres://h/db"), { url: "postgres://h/db" });
  });
});

const pgUrl = pgTestUrl();

describe("pdpp on Postgres", { skip: pgUrl ? false : "PDPP_TEST_PG_URL is not set" }, () => {
  it("init --database writes config.json; later commands use it without the flag", async () => {
    const url = pgUrl as string;
    const schema = newTestSchemaName();
    const database = `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;
    const tmp = tempDir();
    const home = join(tmp.dir, "home");
    try {
      const init = await runPdpp(["init", "--database", database], { home });
      assert.equal(init.code, 0, init.stderr);
      assert.deepEqual(JSON.parse(readFileSync(join(home, "config.json"), "utf8")), { database });
      assert.match(init.stdout, /^database: +postgres/m);
      const again = await runPdpp(["init"], { home });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /owner token: .*\(kept, mode 0600/);

      const added = await runPdpp(["connections", "add", "nothing", "x"], { home });
      assert.equal(added.code, 1);
      assert.match(added.stderr, /^pdpp: no such connector/);
      const grants = await runPdpp(["grant", "list"], { home });
      assert.deepEqual([grants.code, grants.stdout], [0, "no grants yet (pdpp grant create …)\n"]);
    } finally {
      tmp.cleanup();
      await dropTestSchema(url, schema);
    }
  });
});
