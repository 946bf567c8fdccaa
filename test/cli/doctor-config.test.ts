// `pdpp doctor` config reading (Claude Desktop JSON, Codex TOML) and tool-name analysis.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientSetupSnippets } from "../../src/cli/client-setup.js";
import { duplicateServers } from "../../src/cli/commands/doctor.js";
import {
  type ConfiguredServer,
  defaultConfigPaths,
  parseCodexToml,
  parseJsonConfig,
} from "../../src/cli/doctor-config.js";
import { analyseToolNames, codexName, geminiBareName, groupShared } from "../../src/cli/doctor-names.js";
import { explainFailure } from "../../src/cli/doctor-probe.js";
import { PdppError } from "../../src/core/errors.js";

describe("doctor config parsing", () => {
  it("reads Claude Code's ~/.claude.json: user-scope and per-project mcpServers", () => {
    const config = parseJsonConfig(
      "/home/me/.claude.json",
      JSON.stringify({
        numStartups: 3,
        mcpServers: { pdpp: { type: "stdio", command: "node", args: ["pdpp.js", "mcp"], env: {} } },
        projects: {
          "/home/me/code/app": {
            allowedTools: [],
            mcpServers: { docs: { type: "http", url: "https://docs.example/mcp" } },
          },
          "/home/me/code/empty": { allowedTools: [] },
        },
      }),
    );
    assert.deepEqual(
      config.servers.map((s) => [s.name, s.transport]),
      [
        ["pdpp", "stdio"],
        ["docs@/home/me/code/app", "http"],
      ],
    );
    const projectsOnly = parseJsonConfig(
      "/home/me/.claude.json",
      JSON.stringify({ projects: { "/p": { mcpServers: { a: { command: "x" } } } } }),
    );
    assert.deepEqual(
      projectsOnly.servers.map((s) => s.name),
      ["a@/p"],
    );
  });

  it("looks for Codex under $CODEX_HOME and for Claude Code's ~/.claude.json", () => {
    const paths = defaultConfigPaths("/home/me", { CODEX_HOME: "/opt/codex" });
    assert.ok(paths.includes("/opt/codex/config.toml"));
    assert.ok(!paths.includes("/home/me/.codex/config.toml"));
    assert.ok(paths.includes("/home/me/.claude.json"));
    assert.ok(defaultConfigPaths("/home/me", {}).includes("/home/me/.codex/config.toml"));
  });

  it("reads opencode.json as setup prints it (local and remote), at its default path", () => {
    const snippets = clientSetupSnippets({
      node: "/usr/bin/node",
      bin: "/opt/pdpp/bin/pdpp.js",
      home: "/home/me/.pdpp",
      token: "pdpp_ct_x",
      mcpUrl: "http://127.0.0.1:7662/mcp",
    });
    const text = (title: string) => snippets.find((s) => s.title === title)?.text ?? "";
    const local = parseJsonConfig("opencode.json", text("opencode"));
    assert.equal(local.servers.length, 1);
    const [server] = local.servers;
    assert.equal(server.transport, "stdio");
    assert.ok(server.transport === "stdio" && server.command === "/usr/bin/node");
    assert.ok(server.transport === "stdio" && server.args.includes("mcp"));
    assert.ok(server.transport === "stdio" && server.env.PDPP_TOKEN === "pdpp_ct_x");
    const remote = parseJsonConfig("opencode.json", text("opencode (hosted)"));
    assert.deepEqual(remote.servers[0], {
      name: remote.servers[0].name,
      transport: "http",
      url: "http://127.0.0.1:7662/mcp",
      headers: { Authorization: "Bearer pdpp_ct_x" },
    });
    const off = parseJsonConfig(
      "o.json",
      JSON.stringify({ mcp: { p: { type: "local", command: ["x"], enabled: false } } }),
    );
    assert.deepEqual(off.skipped, [{ name: "p", reason: "disabled" }]);
    assert.ok(defaultConfigPaths("/home/me", {}).includes("/home/me/.config/opencode/opencode.json"));
  });

  it("reads Claude Desktop mcpServers: stdio, http, and skips what it cannot use", () => {
    const config = parseJsonConfig(
      "c.json",
      JSON.stringify({
        mcpServers: {
          pdpp: { command: "node", args: ["bin/pdpp.js", "mcp"], env: { PDPP_TOKEN: "t", N: 1 } },
          web: { url: "https://x.example/mcp", headers: { authorization: "Bearer z" } },
          off: { command: "x", disabled: true },
          odd: { note: "?" },
        },
      }),
    );
    assert.deepEqual(config.servers, [
      {
        name: "pdpp",
        transport: "stdio",
        command: "node",
        args: ["bin/pdpp.js", "mcp"],
        env: { PDPP_TOKEN: "t", N: "1" },
      },
      {
        name: "web",
        transport: "http",
        url: "https://x.example/mcp",
        headers: { authorization: "Bearer z" },
      },
    ]);
    assert.deepEqual(config.skipped, [
      { name: "off", reason: "disabled" },
      { name: "odd", reason: "neither a command nor a url" },
    ]);
  });

  it("reads Codex [mcp_servers.x] tables", () => {
    const config = parseCodexToml(
      "config.toml",
      '[mcp_servers.pdpp]\ncommand = "node"\nargs = ["a", "b"]\nenv = { PDPP_TOKEN = "t" }\n\n[mcp_servers.gh]\nurl = "https://g/mcp"\n',
    );
    assert.equal(config.format, "toml");
    assert.deepEqual(
      config.servers.map((s) => [s.name, s.transport]),
      [
        ["pdpp", "stdio"],
        ["gh", "http"],
      ],
    );
  });

  it("sends a Codex bearer_token_env_var as the Authorization header", () => {
    process.env.PDPP_DOCTOR_TEST_TOKEN = "pdpp_ct_abc";
    try {
      const config = parseCodexToml(
        "config.toml",
        '[mcp_servers.h]\nurl = "http://127.0.0.1:7662/mcp"\nbearer_token_env_var = "PDPP_DOCTOR_TEST_TOKEN"\n',
      );
      assert.deepEqual(config.servers, [
        {
          name: "h",
          transport: "http",
          url: "http://127.0.0.1:7662/mcp",
          headers: { Authorization: "Bearer pdpp_ct_abc" },
        },
      ]);
    } finally {
      delete process.env.PDPP_DOCTOR_TEST_TOKEN;
    }
  });

  it("rejects files that are not configs with one clear error", () => {
    assert.throws(
      () => parseJsonConfig("c.json", "{"),
      (e: unknown) => e instanceof PdppError && /not valid JSON/.test(e.message),
    );
    assert.throws(() => parseJsonConfig("c.json", "{}"), /no "mcpServers"/);
    assert.throws(() => parseCodexToml("c.toml", "[x"), /not valid TOML/);
    assert.throws(() => parseCodexToml("c.toml", "a = 1"), /mcp_servers/);
  });
});

describe("tool-name analysis", () => {
  it("shared names are notes; over-long names are warnings by each client's own rule", () => {
    const long = "a".repeat(61);
    const report = analyseToolNames([
      { server: "pdpp", tools: ["search", "fetch", "schema"] },
      { server: "web", tools: ["search", "fetch"] },
      { server: long, tools: ["go"] },
    ]);
    assert.deepEqual(
      report.shared.map((c) => [c.tool, c.servers]),
      [
        ["fetch", ["pdpp", "web"]],
        ["search", ["pdpp", "web"]],
      ],
    );
    // mcp__<61 a>__go is 70 chars: Claude Code refuses it, Codex shortens it; Cursor counts 63.
    assert.deepEqual(
      report.long.map((l) => [l.client, l.length, l.shownAs]),
      [
        ["Claude Code", 70, null],
        ["Codex", 70, codexName(long, "go")],
        ["Cursor", 63, null],
      ],
    );
    assert.match(codexName(long, "go"), /^mcp__a{19}[0-9a-f]{40}$/);
    assert.equal(geminiBareName("a.b c"), "a.b_c");
    assert.deepEqual(report.clashes, []);
  });
});

describe("doctor report helpers", () => {
  it("groups shared tool names by server set and finds copy-pasted entries", () => {
    const report = analyseToolNames([
      { server: "pdpp", tools: ["search", "fetch"] },
      { server: "pdpp2", tools: ["search", "fetch"] },
      { server: "web", tools: ["browse"] },
    ]);
    assert.deepEqual(groupShared(report.shared), [
      { servers: ["pdpp", "pdpp2"], tools: ["fetch", "search"] },
    ]);
    const stdio = (name: string, env: Record<string, string>): ConfiguredServer => ({
      name,
      transport: "stdio",
      command: "node",
      args: ["pdpp.js", "mcp"],
      env,
    });
    assert.deepEqual(
      duplicateServers([
        stdio("a", { PDPP_TOKEN: "t1" }),
        stdio("b", { PDPP_TOKEN: "t1" }),
        stdio("c", { PDPP_TOKEN: "t2" }),
        { name: "h1", transport: "http", url: "http://x/mcp", headers: {} },
        { name: "h2", transport: "http", url: "http://x/mcp", headers: {} },
      ]),
      [
        ["a", "b"],
        ["h1", "h2"],
      ],
    );
  });

  it("says why a stdio server did not start in plain words", () => {
    const server: ConfiguredServer = {
      name: "x",
      transport: "stdio",
      command: "/no/such",
      args: [],
      env: {},
    };
    assert.equal(explainFailure(server, "spawn /no/such ENOENT"), "command not found: /no/such");
    assert.equal(
      explainFailure(server, "MCP error -32000: Connection closed"),
      "the server exited before answering",
    );
    assert.equal(explainFailure(server, "no answer within 100 ms"), "no answer within 100 ms");
  });
});
