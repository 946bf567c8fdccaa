// `pdpp doctor` config reading (Claude Desktop JSON, Codex TOML) and tool-name analysis.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCodexToml, parseJsonConfig } from "../../src/cli/doctor-config.js";
import { analyseToolNames } from "../../src/cli/doctor-names.js";
import { PdppError } from "../../src/core/errors.js";

describe("doctor config parsing", () => {
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
  it("reports tools shared by servers and qualified names over 64 chars", () => {
    const long = "a".repeat(61);
    const report = analyseToolNames([
      { server: "pdpp", tools: ["search", "fetch", "schema"] },
      { server: "web", tools: ["search", "fetch"] },
      { server: long, tools: ["go"] },
    ]);
    assert.deepEqual(
      report.collisions.map((c) => [c.tool, c.servers]),
      [
        ["fetch", ["pdpp", "web"]],
        ["search", ["pdpp", "web"]],
      ],
    );
    assert.equal(report.overLong.length, 1);
    assert.equal(report.overLong[0].qualified, `${long}__go`);
    assert.equal(report.overLong[0].length, 65);
    assert.match(report.overLong[0].shortened, /^a+__go-[0-9a-f]{8}$/);
    assert.ok(report.overLong[0].shortened.length <= 64);
  });
});
