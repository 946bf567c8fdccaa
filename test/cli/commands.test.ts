// The real CLI end to end: init, connections, grants, errors and --help on every command.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { hashToken } from "../../src/core/ids.js";
import type { Manifest } from "../../src/core/manifest.js";
import { openStoreAt } from "../../src/store/open.js";
import { BIN, errorLines, runPdpp, tempDir } from "./run-cli.js";

const NOTES: Manifest = {
  connector_key: "notes",
  display_name: "Notes",
  version: "1",
  streams: [
    {
      name: "notes",
      primary_key: ["id"],
      time_field: "at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          at: { type: "string", format: "date-time" },
          body: { type: "string" },
        },
      },
      text_fields: ["body"],
      query: { search: ["body"] },
    },
  ],
};

/** Bytes of the SQLite database files (main + WAL), to look for secrets in them. */
function databaseBytes(home: string): string {
  return ["pdpp.db", "pdpp.db-wal"]
    .map((name) => join(home, name))
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString("latin1"))
    .join("");
}

describe("pdpp CLI", () => {
  const tmp = tempDir();
  const home = join(tmp.dir, "home");
  let ownerToken = "";
  after(() => tmp.cleanup());

  before(async () => {
    const init = await runPdpp(["init"], { home });
    assert.equal(init.code, 0, init.stderr);
    ownerToken = readFileSync(join(home, "owner-token"), "utf8").trim();
    const opened = await openStoreAt(home);
    await opened.store.putManifest(NOTES);
    await opened.close();
  });

  it("init writes a 0600 owner token once; only its hash reaches the database", async () => {
    assert.match(ownerToken, /^pdpp_ot_[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(join(home, "owner-token")).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(join(home, "config.json"), "utf8")), { database: "sqlite" });
    const again = await runPdpp(["init", "--home", home], { home: join(tmp.dir, "elsewhere") });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /owner token: .*owner-token \(kept, mode 0600/);
    assert.equal(readFileSync(join(home, "owner-token"), "utf8").trim(), ownerToken);
    assert.equal(existsSync(join(tmp.dir, "elsewhere")), false);
    const bytes = databaseBytes(home);
    assert.ok(bytes.includes(hashToken(ownerToken)), "the owner token hash is stored");
    assert.equal(bytes.includes(ownerToken), false, "the owner token itself is not");
  });

  it("connections add is idempotent and list shows it", async () => {
    const first = await runPdpp(["connections", "add", "notes", "me@example.com"], { home });
    assert.equal(first.code, 0, first.stderr);
    const [connectionId] = first.stdout.trim().split(/\s+/);
    assert.match(connectionId, /^cin_[0-9a-f]{12}$/);
    const second = await runPdpp(["connections", "add", "notes", "me@example.com"], { home });
    assert.equal(second.stdout, first.stdout);
    const list = await runPdpp(["connections", "list"], { home });
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trim().split("\n");
    assert.match(lines[0], /^CONNECTION\s+CONNECTOR\s+LABEL\s+CREATED$/);
    assert.equal(lines.length, 2);
    assert.match(lines[1], new RegExp(`^${connectionId}\\s+notes\\s+me@example.com\\s+\\d{4}-`));
  });

  it("grant create prints the token once, list shows it, revoke ends it", async () => {
    const created = await runPdpp(
      [
        "grant",
        "create",
        "--client",
        "claude",
        "--stream",
        "notes:notes",
        "--purpose",
        "test",
        "--save",
        join(tmp.dir, "c.json"),
      ],
      { home },
    );
    assert.equal(created.code, 0, created.stderr);
    const grantId = /^grant (grt_[0-9a-f]{16}) for claude: notes:notes$/m.exec(created.stdout)?.[1];
    const token = /^client token \(shown once; keep it secret\): (pdpp_ct_[A-Za-z0-9_-]+)$/m.exec(
      created.stdout,
    )?.[1];
    assert.ok(grantId && token, created.stdout);
    assert.equal(created.stdout.split(token).length, 2, "the token appears exactly once");
    const saved = JSON.parse(readFileSync(join(tmp.dir, "c.json"), "utf8"));
    assert.deepEqual(saved, { token, store: home });
    const credentials = join(tmp.dir, "c.json");
    assert.match(
      created.stdout,
      new RegExp(`^saved to ${credentials} \\(mode 0600\\); run: pdpp mcp --token-file ${credentials}$`, "m"),
    );
    // The saved file is what `pdpp mcp` reads: the printed command really serves the grant.
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--token-file", credentials],
        env: getDefaultEnvironment(),
        stderr: "pipe",
      }),
    );
    try {
      const schema = await client.callTool({ name: "schema", arguments: {} });
      assert.notEqual(schema.isError, true, JSON.stringify(schema.content));
      assert.match(JSON.stringify(schema.structuredContent), /"connector_key":"notes"/);
    } finally {
      await client.close();
    }
    assert.equal(statSync(join(tmp.dir, "c.json")).mode & 0o777, 0o600);
    const bytes = databaseBytes(home);
    assert.ok(bytes.includes(hashToken(token)));
    assert.equal(bytes.includes(token), false);

    const list = await runPdpp(["grant", "list"], { home });
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      new RegExp(`^${grantId}\\s+claude\\s+active\\s+\\S+\\s+never\\s+notes:notes$`, "m"),
    );
    assert.equal(list.stdout.includes(token), false);

    const revoked = await runPdpp(["grant", "revoke", grantId], { home });
    assert.deepEqual([revoked.code, revoked.stdout], [0, `revoked ${grantId}\n`]);
    const after = await runPdpp(["grant", "list"], { home });
    assert.match(after.stdout, new RegExp(`^${grantId}\\s+claude\\s+revoked\\s`, "m"));
  });

  it("grant create --setup prints every client's config for the new token", async () => {
    const created = await runPdpp(
      ["grant", "create", "--client", "setup", "--stream", "notes:notes", "--setup"],
      {
        home,
      },
    );
    assert.equal(created.code, 0, created.stderr);
    const token = /^client token \(shown once; keep it secret\): (pdpp_ct_[A-Za-z0-9_-]+)$/m.exec(
      created.stdout,
    )?.[1];
    assert.ok(token, created.stdout);
    for (const title of [
      "Claude Desktop",
      "Claude Code",
      "Codex",
      "Cursor",
      "Gemini CLI",
      "opencode",
      "Generic stdio",
    ]) {
      assert.match(created.stdout, new RegExp(`^── ${title} — `, "m"), title);
    }
    assert.ok(
      created.stdout.includes(
        `args = [${JSON.stringify(BIN)}, "mcp", "--store", ${JSON.stringify(home)}]\nenv = { PDPP_TOKEN = "${token}" }`,
      ),
      created.stdout,
    );
  });

  it("grant create --provider-url: --setup adds the hosted /mcp config; alone, the printed command uses it", async () => {
    const withSetup = await runPdpp(
      [
        "grant",
        "create",
        "--client",
        "hosted",
        "--stream",
        "notes:notes",
        "--setup",
        "--provider-url",
        "https://pdpp.example.com/",
      ],
      { home },
    );
    assert.equal(withSetup.code, 0, withSetup.stderr);
    const token = /^client token \(shown once; keep it secret\): (pdpp_ct_[A-Za-z0-9_-]+)$/m.exec(
      withSetup.stdout,
    )?.[1];
    assert.ok(token, withSetup.stdout);
    assert.match(withSetup.stdout, /^── Hosted \(Streamable HTTP\) — /m);
    assert.ok(
      withSetup.stdout.includes(
        `url:    https://pdpp.example.com/mcp\nheader: Authorization: Bearer ${token}\n`,
      ),
    );

    const alone = await runPdpp(
      [
        "grant",
        "create",
        "--client",
        "remote",
        "--stream",
        "notes:notes",
        "--provider-url",
        "http://127.0.0.1:7662",
      ],
      { home },
    );
    assert.equal(alone.code, 0, alone.stderr);
    assert.ok(alone.stdout.includes(`${BIN} mcp --provider-url http://127.0.0.1:7662\n`), alone.stdout);
  });

  it("audit shows the MCP read made with the grant's token as an aligned row", async () => {
    const audit = await runPdpp(["audit", "--limit", "5"], { home });
    assert.equal(audit.code, 0, audit.stderr);
    const lines = audit.stdout.trim().split("\n");
    assert.match(lines[0], /^TIME +CLIENT +TOOL\/ROUTE +STREAM +RECORDS +BYTES +STATUS$/);
    const row = lines.find((line) => /^\S+Z +claude +mcp:schema +- +\d+ +\d+ +200$/.test(line));
    assert.ok(row, audit.stdout);
    assert.equal(row.indexOf("claude"), lines[0].indexOf("CLIENT"), "columns are aligned");
    const filtered = await runPdpp(["audit", "--grant", "grt_0000000000000000"], { home });
    assert.deepEqual([filtered.code, filtered.stdout], [0, "no access recorded yet\n"]);
  });

  it("errors are one line on stderr with exit code 1", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["grant", "revoke", "grt_0000000000000000"],
        /^pdpp: no grant grt_0000000000000000; see pdpp grant list\.$/,
      ],
      [["grant", "create", "--client", "x", "--stream", "bad"], /^pdpp: --stream "bad" must look like/],
      [
        ["grant", "create", "--stream", "notes:notes"],
        /^pdpp: required option '--client <name>' not specified$/,
      ],
      [
        ["connections", "remove", "cin_000000000000"],
        /^pdpp: no connection cin_000000000000; see pdpp connections list\.$/,
      ],
      [["connections", "add", "nope", "x"], /^pdpp: no such connector/],
      [["audit", "--limit", "zero"], /^pdpp: --limit must be an integer/],
      [
        ["mcp", "--store", "/nonexistent-pdpp-home"],
        /^pdpp: --store \/nonexistent-pdpp-home is not a pdpp home \(no config\.json\)/,
      ],
      [["audit", "--grant", "grt_x"], /^pdpp: --grant must be a grant id \(grt_ and 16 hex digits/],
      [
        ["grant", "create", "--client", "x", "--stream", "notes:notes", "--fields", "bodyy"],
        /^pdpp: --fields: no granted stream has a field bodyy \(notes:notes: id, at, body\)\.$/,
      ],
      [["serve", "--port", "99999"], /^pdpp: --port must be an integer/],
      [["nonsense"], /^pdpp: unknown command 'nonsense'/],
      [["init", "--database", "mysql://x"], /^pdpp: database must be "sqlite" or a postgres:\/\/ URL/],
    ];
    for (const [args, pattern] of cases) {
      const result = await runPdpp(args, { home });
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
      const lines = errorLines(result);
      assert.equal(lines.length, 1, `${args.join(" ")} printed ${JSON.stringify(result.stderr)}`);
      assert.match(lines[0], pattern);
    }
  });

  it("pdpp --home X mcp opens that home; a wrong-format import is one stderr line; a home under a file is refused", async () => {
    const created = await runPdpp(["grant", "create", "--client", "home-flag", "--stream", "notes:notes"], {
      home,
    });
    const token = /^client token \(shown once; keep it secret\): (pdpp_ct_[A-Za-z0-9_-]+)$/m.exec(
      created.stdout,
    )?.[1];
    assert.ok(token, created.stdout);
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "--home", home, "mcp"],
        env: { ...getDefaultEnvironment(), PDPP_TOKEN: token },
        stderr: "pipe",
      }),
    );
    try {
      const schema = await client.callTool({ name: "schema", arguments: {} });
      assert.notEqual(schema.isError, true, JSON.stringify(schema.content));
      assert.match(JSON.stringify(schema.structuredContent), /"connector_key":"notes"/);
    } finally {
      await client.close();
    }

    const wrong = join(tmp.dir, "notes.txt");
    writeFileSync(wrong, "just some text\n");
    const imported = await runPdpp(["import", "chatgpt", wrong], { home });
    assert.equal(imported.code, 1);
    assert.equal(imported.stdout, "");
    assert.deepEqual(errorLines(imported), [
      "pdpp: nothing imported from notes.txt: 1 item rejected, the first at byte 0: expected a top-level JSON array ([…]). Is it a chatgpt file? Nothing was stored.",
    ]);

    const underFile = join(wrong, "home");
    const init = await runPdpp(["init"], { home: underFile });
    assert.equal(init.code, 1);
    assert.deepEqual(errorLines(init), [
      `pdpp: cannot create the pdpp home ${underFile}: a part of that path is a file, not a directory; pass --home <dir>.`,
    ]);
  });

  it("commands on a home that was never initialised say to run pdpp init", async () => {
    const result = await runPdpp(["grant", "list"], { home: join(tmp.dir, "nothing-here") });
    assert.equal(result.code, 1);
    assert.match(errorLines(result)[0], /^pdpp: no pdpp home at .*nothing-here.*run `pdpp init` first/);
  });
});

describe("pdpp --help", () => {
  const commands = [
    [],
    ["init"],
    ["serve"],
    ["connections"],
    ["connections", "add"],
    ["connections", "list"],
    ["connections", "remove"],
    ["grant"],
    ["grant", "create"],
    ["grant", "list"],
    ["grant", "revoke"],
    ["demo"],
    ["audit"],
    ["doctor"],
    ["import"],
    ["import", "mbox"],
    ["import", "csv"],
    ["mcp"],
  ];
  it("every command answers --help with its usage and exit code 0", async () => {
    const tmp = tempDir();
    try {
      // A few at a time: each is a separate node process.
      for (let i = 0; i < commands.length; i += 4) {
        await Promise.all(
          commands.slice(i, i + 4).map(async (command) => {
            const result = await runPdpp([...command, "--help"], { home: tmp.dir });
            assert.equal(result.code, 0, `${command.join(" ")}: ${result.stderr}`);
            assert.ok(
              result.stdout.startsWith(`Usage: pdpp${command.map((c) => ` ${c}`).join("")} `),
              result.stdout,
            );
            assert.match(result.stdout, /--home <dir>/);
          }),
        );
      }
    } finally {
      tmp.cleanup();
    }
  });

  it("--version prints the package version", async () => {
    const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
    const result = await runPdpp(["--version"], { home: "/nonexistent" });
    assert.deepEqual([result.code, result.stdout], [0, `${version}\n`]);
  });
});
